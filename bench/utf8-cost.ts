// The upstream bytes-to-text decode alone (lib/utf8-stream.ts), for counting its instructions under
// valgrind: `--rounds` times, a fresh stream decodes the chunks the bench upstream's answers are
// made of (a Messages head, then 50 Chat and 50 Messages text deltas, all ASCII), or with `--utf8`
// the Messages deltas with a raw `é` in each (a chunk that is not all ASCII). Run it under
// `valgrind --tool=cachegrind --cache-sim=no` with `node --predictable` at two `--rounds` values:
// the difference over the difference in rounds is the instructions per round. `--dist` decodes with
// another build's lib/utf8-stream.js.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: join(dirname(fileURLToPath(import.meta.url)), '..') },
    rounds: { type: 'string', default: '10000' },
    utf8: { type: 'boolean', default: false },
  },
});

const { Utf8Stream } = (await import(pathToFileURL(join(resolve(args.dist), 'lib/utf8-stream.js')).href)) as typeof import('../lib/utf8-stream.js');
const text = args.utf8 ? ' mot é' : ' word';
const head = Buffer.from('event: message_start\ndata: {"type":"message_start"}\n\n');
const chat = Buffer.from(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`.repeat(50));
const messages = Buffer.from(`event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\n`.repeat(50));

let chars = 0;
for (let i = 0; i < Number(args.rounds); i++) {
  const stream = new Utf8Stream();
  chars += stream.decode(head).length + stream.decode(chat).length + stream.decode(messages).length;
}
console.log(`${args.rounds} rounds of ${head.length + chat.length + messages.length} bytes: ${chars} characters`);
