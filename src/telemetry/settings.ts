/**
 * What the environment turns on, read before anything starts (a malformed
 * setting stops the start): metrics on the operator's address, traces to an
 * OTLP endpoint. Kept apart from the adapters (`index.ts`), which load
 * prom-client and the OpenTelemetry SDK only when one of them is on.
 */

export interface TelemetrySettings {
  metrics?: MetricsSettings;
  tracing: boolean;
}

export function telemetryFromEnv(env: NodeJS.ProcessEnv): TelemetrySettings {
  return { metrics: metricsSettingsFromEnv(env), tracing: tracingWanted(env) };
}

export const telemetryWanted = (settings: TelemetrySettings): boolean => settings.metrics !== undefined || settings.tracing;

export interface MetricsSettings {
  host: string;
  port: number;
  /** The bearer token a scrape must present; absent, none (a loopback address only). */
  token?: string;
}

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|::1|localhost)$/;

/** The shortest token accepted: guessing it must be out of reach. */
const MIN_TOKEN_LENGTH = 16;

/**
 * `LEGALWORK_METRICS_ADDRESS` (`host:port`, `[v6]:port`) and
 * `LEGALWORK_METRICS_TOKEN`; undefined when metrics are off. A malformed
 * value, or an address beyond loopback without a token, stops the start.
 */
export function metricsSettingsFromEnv(env: NodeJS.ProcessEnv): MetricsSettings | undefined {
  const address = env.LEGALWORK_METRICS_ADDRESS;
  const token = env.LEGALWORK_METRICS_TOKEN || undefined;
  if (!address) {
    if (token) throw new Error('LEGALWORK_METRICS_TOKEN is set but LEGALWORK_METRICS_ADDRESS is not: set the address the metrics are served on (host:port, e.g. 127.0.0.1:9464)');
    return undefined;
  }
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`LEGALWORK_METRICS_ADDRESS must be host:port (e.g. 127.0.0.1:9464, [::1]:9464), got ${JSON.stringify(address)}`);
  const host = match[1] ?? match[2];
  if (token !== undefined && (token.length < MIN_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(token))) throw new Error(`LEGALWORK_METRICS_TOKEN must be at least ${MIN_TOKEN_LENGTH} printable characters without spaces`);
  if (token === undefined && !LOOPBACK.test(host)) throw new Error(`LEGALWORK_METRICS_ADDRESS ${address} is reachable from other machines: set LEGALWORK_METRICS_TOKEN too, which every scrape must present as a bearer token`);
  return { host, port, ...(token ? { token } : {}) };
}

/** Whether the environment asks for traces: an OTLP endpoint named, and the SDK not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

