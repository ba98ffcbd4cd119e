// The request tracer on OpenTelemetry: one SERVER span per request, named `<method> <path>` (e.g.
// `POST /v1/messages`), with a child span per stage that took time, exported over OTLP/HTTP (JSON)
// by a batch processor (OTEL_BSP_* tune it). Loaded only when tracing is configured (open-tracer.ts).
//
// The request span carries what an operator filters on: the endpoint, the requested and served
// model, the provider, the status, the tokens, the cost, the request id, the key's id and
// organization (never a secret, never prompt or answer text). Its children, each with its own start
// and end: `gateway.prepare` (body read, validated, routed), `gateway.reserve` (the credit hold
// committed), `upstream <provider>` (CLIENT: the call that answered, from sending it to its last
// byte, with `response.headers` and `first_content` events), `gateway.settle` (the charge or
// release committed). A `traceparent` header from the client makes the request span its child.
// Health probes and /metrics scrapes are not traced.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { EndpointName, RequestContext } from '../context.js';
import type { GatewayError } from '../errors.js';
import { unitsToUsd } from '../pricing.js';
import type { OtelTarget } from './otel-target.js';
import { preciseNow, type RequestTracer, type TraceFacts } from './tracer-api.js';

const UNTRACED: ReadonlySet<EndpointName> = new Set<EndpointName>(['health', 'metrics']);

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The caller's trace (a W3C `traceparent` header), or the root context. */
function callerContext(header: string | string[] | undefined): Context {
  const m = typeof header === 'string' ? TRACEPARENT.exec(header.trim()) : null;
  if (m === null || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16) & TraceFlags.SAMPLED, isRemote: true });
}

function requestAttributes(ctx: RequestContext, status: number, costUnits: number, facts: TraceFacts, error: GatewayError | undefined): Attributes {
  const a: Attributes = {
    'http.request.method': ctx.method,
    'url.path': ctx.path,
    'http.response.status_code': status,
    'gateway.request_id': ctx.reqId,
    'gateway.endpoint': ctx.endpoint,
  };
  if (ctx.key !== null) {
    a['gateway.key_id'] = ctx.key.id;
    a['gateway.org'] = ctx.key.org;
  }
  const routed = facts.routed;
  if (routed !== null) {
    if (routed.request.model !== null) a['gen_ai.request.model'] = routed.request.model;
    a['gen_ai.response.model'] = routed.modelId;
    a['gateway.stream'] = routed.request.stream;
    a['gateway.routed'] = routed.routed;
  }
  if (facts.upstream !== null) a['gateway.provider'] = facts.upstream.id;
  const u = facts.usage;
  if (u !== null) {
    a['gen_ai.usage.input_tokens'] = u.input;
    a['gen_ai.usage.output_tokens'] = u.output;
    a['gateway.usage.cache_read_tokens'] = u.cacheRead;
    a['gateway.usage.cache_write_tokens'] = u.cacheWrite;
  }
  a['gateway.cost_usd'] = unitsToUsd(costUnits);
  if (error !== undefined) a['error.type'] = error.code;
  return a;
}

export class OtelTracer implements RequestTracer {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;

  constructor(target: OtelTarget) {
    const exporter = new OTLPTraceExporter({ ...(target.url !== undefined ? { url: target.url } : {}), headers: { ...target.headers } });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': target.serviceName }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    this.tracer = this.provider.getTracer('model-gateway');
  }

  requestEnded(ctx: RequestContext, status: number, costUnits: number, facts: TraceFacts, error: GatewayError | undefined): void {
    // health probes and metric scrapes come every few seconds and say nothing about traffic
    if (UNTRACED.has(ctx.endpoint)) return;
    const end = preciseNow();
    const tracer = this.tracer;
    const span = tracer.startSpan(`${ctx.method} ${ctx.path}`, { kind: SpanKind.SERVER, startTime: ctx.startedAt, attributes: requestAttributes(ctx, status, costUnits, facts, error) }, callerContext(ctx.headers.traceparent));
    // semantic conventions for a server: 5xx is an error; so is an answer that began and then failed
    if (error !== undefined && (status >= 500 || status < 400)) span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
    const parent = trace.setSpan(ROOT_CONTEXT, span);
    const child = (name: string, start: number | undefined, stop: number | undefined, attributes?: Attributes, kind = SpanKind.INTERNAL): ReturnType<Tracer['startSpan']> | null => {
      if (start === undefined || stop === undefined || stop < start) return null;
      const s = tracer.startSpan(name, { kind, startTime: start, ...(attributes ? { attributes } : {}) }, parent);
      s.end(stop);
      return s;
    };
    const m = facts.marks ?? {};
    child('gateway.prepare', ctx.startedAt, m.routedAt);
    child('gateway.reserve', m.routedAt, m.reservedAt);
    const up = facts.upstream;
    if (up !== null) {
      const t = up.timing;
      const s = tracer.startSpan(`upstream ${up.id}`, { kind: SpanKind.CLIENT, startTime: t.sentAt, attributes: { 'gateway.provider': up.id, 'gateway.upstream.api': up.api, 'gen_ai.request.model': up.upstreamModel, 'gateway.upstream.stream': up.stream } }, parent);
      if (up.requestId !== undefined) s.setAttribute('gateway.upstream.request_id', up.requestId);
      if (t.headersAt !== undefined) s.addEvent('response.headers', t.headersAt);
      if (t.firstContentAt !== undefined) s.addEvent('first_content', t.firstContentAt);
      s.end(t.endedAt ?? end);
    }
    child('gateway.settle', m.settleStartAt, m.settledAt, { 'gateway.cost_usd': unitsToUsd(costUnits) });
    span.end(end);
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
  }
}
