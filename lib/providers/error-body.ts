// An upstream error answer's body, read whole but kept only up to 64 KB (what the error envelope
// and the log line quote of it).
const MAX_ERROR_BODY = 64 * 1024;

export async function readLimited(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < MAX_ERROR_BODY) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BODY);
}
