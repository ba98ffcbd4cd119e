// `bin/gateway --record DIR` (config `recordDir`): every upstream attempt's response body is written
// to DIR exactly as it came off the socket, so a stream that failed in production can be run again
// with bin/replay. Per attempt:
//   <reqId>.<attempt>.sse | .json | .body   the bytes (by the upstream's content-type)
//   <reqId>.<attempt>.meta.json             what replay needs to give the client's answer again
// The meta file holds no header but the content-type, no request body, no key: recordings are safe
// to attach to a bug report as far as credentials go (the answer's own text is the user's content).
// Bytes are written synchronously as each chunk passes, so a crash keeps everything received so far;
// the meta file is written when the body ends (completely or not). With recording off, dispatch
// never builds a tap: no work per chunk.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Deployment, RoutedRequest } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { upstreamDialect } from '../dialects/index.js';
import { errors } from '../errors/index.js';
import type { UpstreamResponse } from './upstream-call.js';

function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

function extensionOf(contentType: string): string {
  if (/text\/event-stream/i.test(contentType)) return 'sse';
  if (/json/i.test(contentType)) return 'json';
  return 'body';
}

/** The routing facts the client's answer shows (lib/replay/served.ts reads them back). */
function servedFacts(ctx: RequestContext, r: RoutedRequest | null): Record<string, unknown> | null {
  if (r === null) return null;
  const pricing = ctx.services.catalog.get(r.modelId)?.pricing;
  return { modelId: r.modelId, routed: r.routed, routingLatencyMs: r.routingLatencyMs, maxTokensCappedTo: r.maxTokensCappedTo, ...(pricing !== undefined ? { pricing } : {}) };
}

export class Recorder {
  constructor(readonly dir: string) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw errors.recordDirUnwritable(dir, err as Error);
    }
  }

  /**
   * The same response, its body written to DIR as it is read. `attempt` counts from 1 per request;
   * `shownId` is the request id the client sees (read when the body ended).
   */
  tap(res: UpstreamResponse, ctx: RequestContext, deployment: Deployment, attempt: number, routed: RoutedRequest | null, shownId: () => string): UpstreamResponse {
    const contentType = String(res.headers['content-type'] ?? '');
    const base = join(this.dir, `${fileSafe(ctx.reqId)}.${attempt}`);
    const fd = openSync(`${base}.${extensionOf(contentType)}`, 'w', 0o600);
    let bytes = 0;
    let time: number | undefined;
    const upstreamRequestId = res.headers[deployment.protocol === 'anthropic' ? 'request-id' : 'x-request-id'];
    const finish = (complete: boolean, error?: unknown): void => {
      closeSync(fd);
      const request = routed?.request;
      const meta = {
        requestId: shownId(),
        gatewayRequestId: ctx.reqId,
        attempt,
        time: time ?? Math.floor(Date.now() / 1000),
        upstream: {
          provider: deployment.providerId,
          protocol: deployment.protocol,
          api: deployment.api,
          dialect: upstreamDialect(deployment) ?? null,
          model: deployment.upstreamModel,
          status: res.statusCode,
          contentType,
          requestId: typeof upstreamRequestId === 'string' ? upstreamRequestId : null,
        },
        client: { dialect: ctx.dialect, endpoint: ctx.endpoint, model: request?.model ?? null, stream: request?.stream ?? null },
        served: servedFacts(ctx, routed),
        bytes,
        complete,
        ...(error !== undefined ? { error: error instanceof Error ? error.message : String(error) } : {}),
      };
      writeFileSync(`${base}.meta.json`, JSON.stringify(meta, null, 2) + '\n', { mode: 0o600 });
    };
    async function* body(source: AsyncIterableIterator<Buffer>): AsyncGenerator<Buffer> {
      let done = false;
      try {
        for await (const chunk of source) {
          // the encoders read the clock when the first event arrives: that is the time replay uses
          time ??= Math.floor(Date.now() / 1000);
          writeSync(fd, chunk);
          bytes += chunk.length;
          yield chunk;
        }
        done = true;
        finish(true);
      } catch (err) {
        done = true;
        finish(false, err);
        throw err;
      } finally {
        if (!done) finish(false, 'the reader stopped before the end');
      }
    }
    return { statusCode: res.statusCode, headers: res.headers, body: body(res.body) };
  }
}
