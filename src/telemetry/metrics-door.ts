/**
 * The operator's metrics door: `GET /metrics` on an address of its own
 * (`LEGALWORK_METRICS_ADDRESS`), never on the API's port, so it is no door
 * of the contract (`/openapi.json` stays the API's whole surface) and a
 * deployment exposes the API without exposing it. Behind a bearer token
 * (`LEGALWORK_METRICS_TOKEN`) when one is set, and a token is required for
 * any address but loopback: what the metrics tell (how busy each door is,
 * which refusals are given) is the operator's.
 *
 * Off unless the address is set: no sink is installed, and every instrument
 * is an empty call.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusal } from '../domain/refusals.ts';
import type { Refusal } from '../domain/refusal.ts';

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

const digest = (text: string) => createHash('sha256').update(text).digest();

export interface MetricsDoor {
  /** `host:port` as bound (the port the system gave, for port 0). */
  address: string;
  close(): Promise<void>;
}

/** Serves `scrape` at GET /metrics on the settings' address. */
export async function serveMetrics(settings: MetricsSettings, scrape: (openMetrics: boolean) => Promise<{ contentType: string; body: string }>): Promise<MetricsDoor> {
  const expected = settings.token === undefined ? null : digest(`Bearer ${settings.token}`);
  const authorized = (request: IncomingMessage) => expected === null || timingSafeEqual(digest(request.headers.authorization ?? ''), expected);
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) return refuse(response, refusal('METRICS_ROUTE_NOT_FOUND', { method: request.method ?? '', path }));
    if (!authorized(request)) return refuse(response, refusal('METRICS_TOKEN_INVALID', {}), { 'www-authenticate': 'Bearer realm="legalwork metrics"' });
    const openMetrics = /application\/openmetrics-text/.test(request.headers.accept ?? '');
    scrape(openMetrics).then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => refuse(response, refusal('INTERNAL', { requestId: `metrics: ${error instanceof Error ? error.message : String(error)}` })),
    );
  });
  // A scrape holds its connection a moment; a stop never waits on one.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(settings.port, settings.host, () => listening());
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

function refuse(response: ServerResponse, refused: Refusal, headers: Record<string, string> = {}): void {
  response.writeHead(refused.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(refused.toBody()));
}
