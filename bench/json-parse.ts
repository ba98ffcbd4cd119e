// Benchmark: parseStrict vs JSON.parse on a ~200 KB Claude-Code-like request body.
// Run: npm run build && node dist/bench/json-parse.js
import { parseStrict } from '../lib/json/strict-parse.js';
import { claudeCodeBody } from './bodies.js';

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

const text = claudeCodeBody('claude-sonnet-4-5', 200 * 1024);
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
