// Header rules shared by the OpenAI-style JSON endpoints (Chat Completions, Responses).
import { GatewayError } from '../../errors.js';

/** `Content-Type: application/json` exactly once (parameters such as a charset allowed). */
export function requireJsonContentType(rawHeaders: readonly string[]): void {
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'content-type') continue;
    if (value !== undefined) throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', 'content-type: the header appears more than once; send it exactly once.', { param: 'content-type' });
    value = rawHeaders[i + 1]!;
  }
  if (value === undefined) throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', 'content-type: missing; send `Content-Type: application/json`.', { param: 'content-type' });
  const media = value.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', `content-type: "${value}" is not accepted; send \`Content-Type: application/json\`.`, { param: 'content-type' });
  }
}
