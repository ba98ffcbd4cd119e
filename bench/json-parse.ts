// Benchmark: parseStrict vs JSON.parse on a ~200 KB Claude-Code-like request body.
// Run: npm run build && node dist/bench/json-parse.js
import { parseStrict } from '../lib/json/strict-parse.js';

function buildBody(targetBytes: number): string {
  const tools = [];
  for (let i = 0; i < 20; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Runs operation ${i}.\nUse it when the user asks for "op ${i}"; never otherwise.\n\n- fast\n- safe`,
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Absolute path to the file' },
          limit: { type: 'integer', minimum: 1, maximum: 2000 },
          recursive: { type: 'boolean', default: false },
        },
        required: ['path'],
        additionalProperties: false,
      },
    });
  }
  const messages: unknown[] = [];
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    stream: true,
    system: [{ type: 'text', text: 'You are Claude Code, an interactive CLI tool.\n'.repeat(40), cache_control: { type: 'ephemeral' } }],
    tools,
    messages,
    metadata: { user_id: 'user_0123456789abcdef_account__session_5f0e' },
  };
  const code = 'export function add(a: number, b: number): number {\n\treturn a + b; // "sum" — ✓ ok\n}\n';
  for (let i = 0; JSON.stringify(body).length < targetBytes; i++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `Please look at file number ${i} and fix the bug in it. Thanks! ` }] });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `I'll read the file src/file_${i}.ts first.` },
        { type: 'tool_use', id: `toolu_01ABCDEF${i}`, name: 'tool_3', input: { path: `/repo/src/file_${i}.ts`, limit: 400 } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_01ABCDEF${i}`, content: code.repeat(8), is_error: false }],
    });
  }
  return JSON.stringify(body);
}

/** best of several interleaved rounds, so that load from other processes biases no parser */
function measure(rows: readonly (readonly [string, () => unknown])[], rounds: number, ms: number): number[] {
  for (const [, fn] of rows) for (let i = 0; i < 50; i++) fn(); // warm up
  const best = rows.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    rows.forEach(([, fn], k) => {
      let n = 0;
      const start = performance.now();
      let elapsed = 0;
      while (elapsed < ms) {
        for (let i = 0; i < 5; i++) fn();
        n += 5;
        elapsed = performance.now() - start;
      }
      best[k] = Math.max(best[k] ?? 0, (n * 1000) / elapsed);
    });
  }
  return best;
}

const text = buildBody(200 * 1024);
const bytes = Buffer.from(text, 'utf8');
const rows = [
  ['JSON.parse(string)', () => JSON.parse(text)],
  ['parseStrict(string)', () => parseStrict(text)],
  ['JSON.parse(buffer.toString())', () => JSON.parse(bytes.toString('utf8'))],
  ['parseStrict(buffer)', () => parseStrict(bytes)],
] as const;
console.log(`body: ${bytes.length} bytes (${text.length} chars)`);
const results = measure(rows, 6, 400);
const base = results[0] ?? 1;
rows.forEach(([name], k) => {
  const ops = results[k] ?? 0;
  console.log(`${name.padEnd(32)} ${ops.toFixed(0).padStart(7)} ops/s  (${(base / ops).toFixed(2)}x the time of JSON.parse)`);
});
