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
import { requestIds } from '../domain/ids.ts';
import { refusal } from '../domain/refusals.ts';
import type { MetricsSettings } from './settings.ts';
import type { Refusal } from '../domain/refusal.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

export interface MetricsDoor {
  /** `host:port` as bound (the port the system gave, for port 0). */
  address: string;
  close(): Promise<void>;
}

/** Serves `scrape` at GET /metrics on the settings' address. */
export async function serveMetrics(settings: MetricsSettings, scrape: (openMetrics: boolean) => Promise<{ contentType: string; body: string }>): Promise<MetricsDoor> {
  const newRequestId = requestIds();
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
      // A worker of `--processes N` that did not answer in time, say: the scrape fails whole (Prometheus records `up` 0), never a partial sum.
      () => refuse(response, refusal('INTERNAL', { requestId: newRequestId() })),
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
