// One keep-alive undici Pool per provider origin, built at start. `send` makes one upstream call.
import { Agent, request, type Dispatcher } from 'undici';
import type { Config, ProviderConfig } from '../config.js';
import { TRANSPORTS, type Transport } from './transport.js';
import { upstreamBody } from './released-body.js';
import { dispatchCall, type UpstreamResponse } from './upstream-call.js';
import type { AbortWatch } from '../request-abort.js';

export interface ProviderHandle {
  config: ProviderConfig;
  baseUrl: string;
  /** `baseUrl` split for undici's dispatcher: scheme, host and port; and the path prefix */
  origin: string;
  pathPrefix: string;
  transport: Transport;
  /** prebuilt authentication headers */
  auth: Record<string, string>;
}

export interface SendOptions {
  method?: string;
  headers: Record<string, string>;
  body: string | Buffer | NodeJS.ReadableStream;
  signal: AbortSignal;
}

export class ProviderPool {
  private readonly handles = new Map<string, ProviderHandle>();
  readonly agent: Agent;

  /** `simulatedUrls` maps simulated provider ids to the in-process simulated provider's base URL */
  constructor(config: Config, simulatedUrl: string | null) {
    // no cap on connections per origin: every open client stream holds one upstream connection
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: null, pipelining: 1 });
    for (const p of config.providers) {
      let baseUrl = p.baseUrl;
      if (p.simulated) {
        if (!simulatedUrl) throw new Error(`provider ${p.id} is simulated but no simulated provider runs`);
        baseUrl = p.protocol === 'openai' ? `${simulatedUrl}/v1` : simulatedUrl;
      }
      const transport = TRANSPORTS[p.protocol];
      const base = new URL(baseUrl!.replace(/\/+$/, ''));
      this.handles.set(p.id, {
        config: p,
        baseUrl: baseUrl!.replace(/\/+$/, ''),
        origin: base.origin,
        pathPrefix: base.pathname.replace(/\/+$/, ''),
        transport,
        auth: { ...transport.authHeaders(p.apiKey ?? (p.simulated ? 'sim-key' : undefined)), ...(p.headers ?? {}) },
      });
    }
  }

  get(id: string): ProviderHandle {
    const h = this.handles.get(id);
    if (!h) throw new Error(`unknown provider ${id}`);
    return h;
  }

  send(handle: ProviderHandle, path: string, opts: SendOptions): Promise<Dispatcher.ResponseData> {
    return request(`${handle.baseUrl}${path}`, {
      method: (opts.method ?? 'POST') as Dispatcher.HttpMethod,
      headers: opts.headers,
      body: opts.body as string,
      signal: opts.signal,
      dispatcher: this.agent,
      headersTimeout: handle.config.timeoutMs ?? 600_000,
      bodyTimeout: handle.config.idleTimeoutMs ?? 600_000,
    });
  }

  /**
   * One call, without undici's Readable body (see upstream-call.ts): the hot path of dispatch. A
   * large request body is let go of once written (released-body.ts).
   */
  open(handle: ProviderHandle, path: string, opts: { headers: Record<string, string>; body: string | Buffer; signal: AbortWatch }): Promise<UpstreamResponse> {
    const { body, headers } = upstreamBody(opts.body, opts.headers);
    return dispatchCall(
      this.agent,
      {
        origin: handle.origin,
        path: `${handle.pathPrefix}${path}`,
        method: 'POST',
        headers,
        // undici writes any async iterable body (client-h1's writeIterable); its types name only Readable
        body: body as string | Buffer,
        headersTimeout: handle.config.timeoutMs ?? 600_000,
        bodyTimeout: handle.config.idleTimeoutMs ?? 600_000,
      },
      opts.signal,
    );
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
