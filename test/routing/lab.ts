// The routing tests' lab: catalog models on the simulated providers with hand-set quality profiles
// (so expectations never depend on the trained weights' particulars: equal profiles predict equal
// quality on every prompt, and an ability of 20 against 0 keeps the strong model's predicted quality
// at ~1 and the weak one's far below any usual target), requests through the real bin/gateway, and
// what the gateway said about each one (answer, log line, usage row).
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningGateway } from '../helpers/gateway.js';
import { TEST_KEY } from '../helpers/gateway.js';
import { localRequestId, LedgerView, type UsageRow } from '../helpers/billing.js';
import { eventually } from '../helpers/messages.js';

export { TEST_KEY };

/** A text model on the simulated Anthropic provider, with every capability unless `extra` removes it. */
export function labModel(id: string, price: { input: number; output: number; cacheRead?: number }, ability: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    deployments: [{ provider: 'sim-anthropic', model: id.replace(/\//g, '-') }],
    pricing: { cacheRead: price.input / 10, ...price },
    input: ['text', 'image'],
    contextWindow: 1_000_000,
    maxOutputTokens: 32000,
    reasoning: true,
    tools: true,
    speeds: ['standard', 'fast'],
    webSearch: true,
    quality: { ability },
    ...extra,
  };
}

/** A config of `models` (all router candidates) on a SQLite file, with the test key in org `acme`. */
export function labConfig(models: Record<string, unknown>[], extra: Record<string, unknown> = {}): { config: Record<string, unknown>; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-routing-'));
  const db = join(dir, 'gw.db');
  const config = {
    store: `sqlite:${db}`,
    logLevel: 'info',
    providers: [
      { id: 'sim-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 5000, idleTimeoutMs: 5000 },
      { id: 'sim-openai', protocol: 'openai', simulated: true, timeoutMs: 5000, idleTimeoutMs: 5000 },
    ],
    models,
    anthropicVersions: ['2026-10-21'],
    orgs: [{ id: 'acme', credits: 100 }],
    keys: [{ id: 'full', key: TEST_KEY, org: 'acme' }],
    ...extra,
  };
  return { config, db };
}

/** What the gateway said about one request. */
export interface Answer {
  status: number;
  body: Record<string, any>;
  text: string;
  /** the gateway's own request id */
  reqId: string | null;
  /** `gateway.routed_model` (null when absent) */
  routed: string | null;
}

async function send(gw: RunningGateway, path: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: Record<string, any> = {};
  try {
    parsed = JSON.parse(text) as Record<string, any>;
  } catch {
    // an SSE answer or a broken one: the test looks at `text`
  }
  return { status: res.status, body: parsed, text, reqId: localRequestId(res.headers), routed: (parsed.gateway?.routed_model as string | undefined) ?? null };
}

/** POST /v1/messages with the test key (or `key`) and extra headers. */
export function messages(gw: RunningGateway, body: unknown, headers: Record<string, string> = {}, key = TEST_KEY): Promise<Answer> {
  return send(gw, '/v1/messages', { 'anthropic-version': '2023-06-01', 'x-api-key': key, ...headers }, body);
}

/** POST /v1/responses. */
export function responses(gw: RunningGateway, body: unknown, key = TEST_KEY): Promise<Answer> {
  return send(gw, '/v1/responses', { authorization: `Bearer ${key}` }, body);
}

/** POST /v1/chat/completions. */
export function chat(gw: RunningGateway, body: unknown, key = TEST_KEY): Promise<Answer> {
  return send(gw, '/v1/chat/completions', { authorization: `Bearer ${key}` }, body);
}

/** The request's access-log line (`msg: "request"`), waiting for it (settle writes it at close). */
export async function logLine(gw: RunningGateway, reqId: string | null): Promise<Record<string, any> | undefined> {
  return eventually(async () => gw.logs.find((l) => l.msg === 'request' && l.reqId === reqId) as Record<string, any> | undefined, 5000);
}

/** The request's usage row in the store file. */
export async function usageRow(db: string, org: string, reqId: string | null): Promise<(UsageRow & { routing: string | null }) | undefined> {
  const view = new LedgerView(db);
  try {
    return (await view.row(org, reqId)) as (UsageRow & { routing: string | null }) | undefined;
  } finally {
    view.close();
  }
}

/** Rewrite the config file, send SIGHUP and wait for the reload's log line. */
export async function reload(gw: RunningGateway, config: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const before = gw.logs.length;
  writeFileSync(gw.configFile, JSON.stringify(config));
  gw.proc.kill('SIGHUP');
  return eventually(async () => gw.logs.slice(before).find((l) => typeof l.msg === 'string' && l.msg.startsWith('config reload')), 5000);
}

/** A one-pixel PNG, for image needs. */
export const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
