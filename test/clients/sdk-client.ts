// The SDK clients of the client tier: each is a small script in test/clients/sdk/ using one SDK as
// its docs show, run by node from the client's own cache folder (`.cache/clients/<name>`, where the
// pinned packages are installed), so its imports resolve there and nowhere else. The script talks to
// the gateway in the loopback-only namespace and prints one JSON line of what it saw.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_KEY } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';
import { clientsConfig } from './config.js';
import { ensureNpmClient, GATEWAY_URL, type ClientRun, type RunSpec } from './tier.js';

export interface SdkClient {
  /** the cache folder's name */
  name: string;
  /** npm package → exact version */
  packages: Record<string, string>;
  /** the script in test/clients/sdk/ */
  script: string;
}

/** zod, as every client below takes it for its tool schema */
const ZOD = { zod: '4.6.7' };

export const OPENAI_AGENTS: SdkClient = { name: 'openai-agents', packages: { '@openai/agents': '0.20.0', ...ZOD }, script: 'openai-agents.mjs' };
export const LANGCHAIN: SdkClient = {
  name: 'langchain',
  packages: { '@langchain/openai': '1.6.0', '@langchain/anthropic': '1.5.11', '@langchain/core': '1.4.0', ...ZOD },
  script: 'langchain.mjs',
};
export const AI_SDK_OPENAI_COMPATIBLE: SdkClient = {
  name: 'ai-sdk-openai-compatible',
  packages: { '@ai-sdk/openai-compatible': '3.0.92', ai: '7.0.173', ...ZOD },
  script: 'ai-sdk-openai-compatible.mjs',
};

export interface SdkInstall {
  /** the script's path inside the cache folder, or null */
  script: string | null;
  reason?: string;
  installed: boolean;
  ms: number;
}

/** Installs the client's packages and puts its script beside them. */
export function ensureSdkClient(client: SdkClient): SdkInstall {
  const inst = ensureNpmClient(client.name, client.packages);
  if (inst.reason) return { script: null, reason: inst.reason, installed: inst.installed, ms: inst.ms };
  const script = join(inst.dir, client.script);
  copyFileSync(join(ROOT, 'test', 'clients', 'sdk', client.script), script);
  return { script, installed: inst.installed, ms: inst.ms };
}

/** The variables each SDK reads the gateway from: the OpenAI ones take `<gateway>/v1`, Anthropic's the bare gateway URL. */
export const SDK_ENV = {
  OPENAI_BASE_URL: `${GATEWAY_URL}/v1`,
  OPENAI_API_KEY: TEST_KEY,
  ANTHROPIC_BASE_URL: GATEWAY_URL,
  ANTHROPIC_API_KEY: TEST_KEY,
  OPENAI_AGENTS_DISABLE_TRACING: '1',
  LANGSMITH_TRACING: 'false',
};

/** `node <script> <arg>` against a gateway with the client-tier catalog plus `models`. */
export function sdkRun(script: string, arg: Record<string, unknown>, models: Record<string, unknown>[] = []): Omit<RunSpec, 'out'> {
  const config = clientsConfig();
  const base = config.models as Record<string, unknown>[];
  config.models = [...base, ...models.filter((m) => !base.some((b) => b.id === m.id))];
  return { config, bin: process.execPath, args: [script, JSON.stringify(arg)], env: SDK_ENV };
}

/** A model served through an OpenAI Responses deployment (the Agents SDK's native path). */
export const RESPONSES_MODEL = {
  id: 'openai/gpt-5-mini',
  family: 'openai',
  deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }],
  pricing: { input: 0.25, output: 2 },
  input: ['text', 'image'],
  reasoning: true,
};

/** The script's JSON line (its last line on stdout), or undefined. */
export function scriptOutput(r: ClientRun): Record<string, unknown> | undefined {
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export interface Served {
  /** the gateway endpoint the SDK calls, as the request log names it */
  endpoint: 'messages' | 'chat.completions' | 'responses';
  /** the catalog model that serves it */
  catalog: string;
  /** the path the simulated provider is called on */
  upstream: '/v1/messages' | '/v1/chat/completions' | '/v1/responses';
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * The checks every SDK run shares: the script ended well and printed its line; the gateway served
 * `requests` requests on the expected endpoint with the expected model, each 200 with usage and a
 * cost; the simulated provider got as many, all on the expected path. Returns the script's line.
 */
export function checkSdkRun(t: any, r: ClientRun, s: Served, requests: number): Record<string, unknown> {
  t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms`);
  t.notOk(r.error, `runner error: ${r.error ?? ''}`);
  t.equal(r.exit, 0, `script exit code (stderr: ${r.stderr.slice(-2000)})`);
  const out = scriptOutput(r);
  t.ok(out, `the script printed its JSON line: ${JSON.stringify(r.stdout.slice(-500))}`);
  const logs = r.gatewayLogs.filter((l) => l.msg === 'request');
  t.same(
    logs.map((l) => [l.endpoint, l.status, l.model]),
    Array.from({ length: requests }, () => [s.endpoint, 200, s.catalog]),
    `${requests} requests on ${s.endpoint}, each 200 and served by ${s.catalog}`,
  );
  const usage = (l: Record<string, unknown>): Record<string, number> => (l.usage ?? {}) as Record<string, number>;
  t.ok(logs.length > 0 && logs.every((l) => usage(l).input! > 0 && usage(l).output! > 0 && (l.costUsd as number) > 0), 'each with usage and a cost');
  t.same(r.sim.map((c) => `${c.method} ${c.path}`), Array.from({ length: requests }, () => `POST ${s.upstream}`), `the provider got them on ${s.upstream}`);
  t.match(JSON.stringify(r.sim.at(-1)?.body ?? {}), 'sunny in x', "the last one carried the tool's output to the provider");
  return out ?? {};
}
/* eslint-enable @typescript-eslint/no-explicit-any */
