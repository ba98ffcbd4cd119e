// A real OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 that takes what an
// OpenTelemetry exporter POSTs to /v1/traces (OTLP JSON, gzip or not), answers 200 as a collector
// does, and keeps every span it decoded with its resource and the request's headers.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  events?: { name: string; timeUnixNano: string | number }[];
  status?: { code?: number; message?: string };
}

/** A span as received: attributes as plain values, times in ms since the epoch. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  events: { name: string; ms: number }[];
  status: { code: number; message?: string };
  resource: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** the traces URL (http://127.0.0.1:PORT/v1/traces) */
  url: string;
  /** the base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it */
  base: string;
  spans: ReceivedSpan[];
  /** the headers of every export request */
  headers: IncomingHttpHeaders[];
  /** raw bodies, for checking what was never sent */
  bodies: string[];
  close(): Promise<void>;
}

function plain(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

const attrs = (list: KeyValue[] = []): Record<string, string | number | boolean> => Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));
const ms = (nanos: string | number): number => Number(BigInt(nanos) / 1000n) / 1000;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const text = body.toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      headers.push(req.headers);
      bodies.push(text);
      const doc = JSON.parse(text) as { resourceSpans: { resource?: { attributes?: KeyValue[] }; scopeSpans: { spans: WireSpan[] }[] }[] };
      for (const rs of doc.resourceSpans) {
        const resource = attrs(rs.resource?.attributes);
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              startMs: ms(s.startTimeUnixNano),
              endMs: ms(s.endTimeUnixNano),
              attributes: attrs(s.attributes),
              events: (s.events ?? []).map((e) => ({ name: e.name, ms: ms(e.timeUnixNano) })),
              status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/v1/traces`,
    base,
    spans,
    headers,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
