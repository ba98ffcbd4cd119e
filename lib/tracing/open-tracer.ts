// Opens the request tracer when tracing is configured (otel-target.ts), importing OpenTelemetry
// then and only then: a gateway without tracing never loads it.
import type { Config } from '../config.js';
import { otelTarget } from './otel-target.js';
import type { RequestTracer } from './tracer-api.js';

export async function openTracer(config: Pick<Config, 'otel'>, env: NodeJS.ProcessEnv): Promise<RequestTracer | null> {
  const target = otelTarget(config, env);
  if (target === null) return null;
  const { OtelTracer } = await import('./otel-tracer.js');
  return new OtelTracer(target);
}
