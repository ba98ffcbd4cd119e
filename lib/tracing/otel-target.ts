// Whether and where the gateway exports traces (OTLP over HTTP, JSON), from the `otel` config block
// and the standard OpenTelemetry environment variables. Pure: no OpenTelemetry module is imported.
//
// - `otel.endpoint` (config) is the full traces URL (`http://collector:4318/v1/traces`); it wins.
// - Else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the full URL) or `OTEL_EXPORTER_OTLP_ENDPOINT` (the
//   collector's base URL, `/v1/traces` appended) turn tracing on, as they do for any OTel SDK; the
//   exporter resolves them itself, with `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS`.
// - `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off whatever is set.
// - The service name: `otel.serviceName`, else `OTEL_SERVICE_NAME`, else "model-gateway".
// - `otel.headers` are sent with every export (e.g. a collector's token, written as `${ENV_VAR}`).
import type { Config } from '../config.js';

export const DEFAULT_SERVICE_NAME = 'model-gateway';

export interface OtelTarget {
  /** the traces URL; undefined: the exporter reads it from the environment */
  url: string | undefined;
  serviceName: string;
  headers: Readonly<Record<string, string>>;
}

export function otelTarget(config: Pick<Config, 'otel'>, env: NodeJS.ProcessEnv): OtelTarget | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return null;
  const otel = config.otel;
  const fromEnv = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (otel?.endpoint === undefined && !fromEnv) return null;
  return {
    url: otel?.endpoint,
    serviceName: otel?.serviceName ?? (env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME),
    headers: otel?.headers ?? {},
  };
}
