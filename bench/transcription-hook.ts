// The hook for bench/transcription-upload.ts (20 MB upload, memory stays flat). That file is a
// scenario of its own: when it exports `scenario` (see scenario.ts) the runner loads it like any
// other; while it is a standalone script (it starts its own provider and gateways), the runner runs
// it as a child process and reads its figures from its output (the first `start` line, the
// `#N ... upload` lines, and the `verdict, ...` lines):
//   start                                  76.6 /   76.6
//   #1 20 MB upload → 200                  80.4 /   80.4     +3.8   ...
//   verdict, 30 MB upload (refused at 25 MB): ...; flat (both under 8 MB): met
import { readFileSync } from 'node:fs';
import { runScript } from './procs.js';
import type { CustomScenario, Row, Scenario } from './scenario.js';

const MiB = 1024 * 1024;

export function exportsScenario(compiledFile: string): boolean {
  return /export\s+(const|let|var)\s+scenario\b|export\s*\{[^}]*\bscenario\b/.test(readFileSync(compiledFile, 'utf8'));
}

/**
 * Reads the script's lines: `start` and `#N <size> MB upload → <status>`, each followed by the
 * gateway's RSS and peak, as `RSS 61.0 MB  peak 70.1 MB` or `61.0 / 70.1` (the first pair).
 */
export function parseUploadOutput(out: string): { startRss: number; uploads: { label: string; status: string; rss: number; peak: number }[] } | null {
  const pair = String.raw`(?:RSS\s+([\d.]+) MB\s+peak\s+([\d.]+) MB|([\d.]+)\s*/\s*([\d.]+))`;
  const start = new RegExp(String.raw`^start\s+` + pair, 'm').exec(out);
  if (!start) return null;
  const uploads = [];
  for (const m of out.matchAll(new RegExp(String.raw`^#\d+ (\d+ MB upload) → (.+?)\s{2,}` + pair, 'gm'))) {
    uploads.push({ label: m[1]!, status: m[2]!.trim(), rss: Number(m[3] ?? m[5]), peak: Number(m[4] ?? m[6]) });
  }
  return { startRss: Number(start[1] ?? start[3]), uploads };
}

/** Runs the standalone script and turns its output into a table row. */
export function standaloneUploadScenario(file: string): CustomScenario {
  return {
    kind: 'custom',
    name: 'transcription-upload',
    title: 'Transcription upload 20 MB (memory), standalone script',
    async run(env): Promise<Row[]> {
      env.log('  transcription-upload: running bench/transcription-upload.js (its own provider and gateway)');
      const r = await runScript(file, [], null, 240_000);
      const parsed = parseUploadOutput(r.stdout);
      const twenty = parsed?.uploads.filter((u) => u.label.startsWith('20 MB')) ?? [];
      if (r.code !== 0) {
        return [{ scenario: this.name, target: 'gateway', notes: [], skipped: `bench/transcription-upload.js failed (exit ${r.code}): ${(r.stderr || r.stdout).replace(/\s+/g, ' ').slice(-300)}` }];
      }
      if (!parsed || twenty.length === 0) {
        env.log(r.stdout);
        return [{ scenario: this.name, target: 'gateway', notes: [], skipped: 'bench/transcription-upload.js ran, but its output has no `start` / `#N 20 MB upload` lines this hook can read (its output is above)' }];
      }
      // the first 20 MB upload runs on a fresh (warmed-up) gateway: its peak is what one upload costs
      const peak = twenty[0]!.peak;
      const rise = (peak - parsed.startRss) * MiB;
      const verdicts = [...r.stdout.matchAll(/^verdict, (.+)$/gm)].map((m) => m[1]!);
      return [
        {
          scenario: this.name,
          target: 'gateway',
          peakRssMB: peak,
          notes: [
            `${twenty.length}× 20 MB upload (${twenty.map((u) => u.status).join(', ')}); RSS at start ${parsed.startRss.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(rise / MiB).toFixed(1)} MB for the first upload, on a fresh gateway after its warm-up); not pinned, own processes`,
            ...verdicts,
          ],
          extra: { rssRiseBytes: rise, uploadBytes: 20 * MiB, verdicts, output: r.stdout },
        },
      ];
    },
  };
}

export async function loadUploadScenario(file: string): Promise<Scenario> {
  if (exportsScenario(file)) {
    const mod = (await import(file)) as { scenario?: Scenario };
    if (mod.scenario) return mod.scenario;
  }
  return standaloneUploadScenario(file);
}
