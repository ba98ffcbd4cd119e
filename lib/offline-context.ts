// A RequestContext for offline use (bin/replay, tests): no server, no configuration, no store;
// and `eventToJson` for NDJSON dumps of canonical events.
// `config` and `services` are NOT available offline: they are `undefined` placeholders typed as
// present, so a stage that needs them fails with a TypeError on first use.
import { randomUUID } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type { CanonicalEvent, DialectName, JsonObject, JsonValue } from './chunks.js';
import type { EndpointName, RequestContext } from './context.js';

export interface OfflineContextOptions {
  reqId?: string;
  dialect?: DialectName;
  endpoint?: EndpointName;
  path?: string;
  /** default: pino at 'warn' writing to stderr */
  log?: Logger;
}

let rootLog: Logger | undefined;

function offlineLog(): Logger {
  rootLog ??= pino({ level: 'warn', base: undefined }, pino.destination(2));
  return rootLog;
}

export function offlineContext(opts: OfflineContextOptions = {}): RequestContext {
  const controller = new AbortController();
  const reqId = opts.reqId ?? `req_offline_${randomUUID().replaceAll('-', '')}`;
  const log = opts.log ?? offlineLog().child({ reqId });
  return {
    reqId,
    log,
    logsInfo: log.isLevelEnabled('info'),
    signal: controller.signal,
    abort: (reason?: unknown) => controller.abort(reason),
    config: undefined as never, // not available offline
    services: undefined as never, // not available offline
    endpoint: opts.endpoint ?? 'messages',
    dialect: opts.dialect ?? 'anthropic',
    method: 'POST',
    path: opts.path ?? '/v1/messages',
    headers: {},
    rawHeaders: [],
    query: new URLSearchParams(),
    startedAt: Date.now(),
    key: null,
    anthropic: null,
    responseHeaders: {},
  };
}

/** A CanonicalEvent as plain JSON for NDJSON dumps: the native frame is named, not copied; errors keep code and wording. */
export function eventToJson(ev: CanonicalEvent): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(ev) as [string, unknown][]) {
    if (key === 'native' || key === 'error' || value === undefined) continue;
    out[key] = value as JsonValue;
  }
  if (ev.native !== undefined) out.native = `${ev.native.dialect}:${ev.native.event}`;
  if (ev.type === 'error') {
    const e = ev.error;
    const error: JsonObject = { code: e.code, status: e.status, message: e.message };
    if (e.upstream !== undefined) error.upstream = JSON.parse(JSON.stringify(e.upstream)) as JsonObject;
    out.error = error;
  }
  return out;
}
