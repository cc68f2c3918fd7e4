/**
 * What the telemetry tests read a service's telemetry with: its metrics door
 * (the Prometheus text parsed into samples), an OTLP/HTTP receiver on a
 * loopback port (the spans the service exports, as the JSON the
 * OpenTelemetry exporter posts), and a real service started with telemetry
 * on, on either journal.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnService, tempDataDir, removeDir, type Child } from '../../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './postgres.ts';
import { HANG_MS } from './wait.ts';

export type JournalKind = 'sqlite' | 'postgres';
export const JOURNALS: JournalKind[] = ['sqlite', 'postgres'];

/** The token the tests' services are started with. */
export const METRICS_TOKEN = 'metrics-test-token-0123456789';

export interface TelemetryService {
  child: Child;
  /** The API's base address. */
  url: string;
  /** The metrics door's base address (`http://host:port`), when metrics are on. */
  metricsUrl?: string;
  /** `host:port` of the metrics door. */
  metricsTarget?: string;
  close(): Promise<void>;
}

/** The service on `journal`, with `env` (metrics, traces) on top; its metrics door found from the line it prints. */
export async function startService(journal: JournalKind, env: Record<string, string>): Promise<TelemetryService> {
  const dir = tempDataDir('legalwork-telemetry-');
  const schema = journal === 'postgres' ? freshSchema() : undefined;
  const child = await spawnService(dir, { ...(schema ? { LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema } : {}), ...env });
  let metricsTarget: string | undefined;
  if (env.LEGALWORK_METRICS_ADDRESS) {
    const deadline = Date.now() + HANG_MS;
    while (!(metricsTarget = /metrics on (\S+)/.exec(child.stderr())?.[1]) && Date.now() < deadline) await new Promise((next) => setTimeout(next, 20));
    if (!metricsTarget) throw new Error(`no "metrics on" line:\n${child.stderr()}`);
  }
  return {
    child,
    url: child.url,
    metricsTarget,
    metricsUrl: metricsTarget && `http://${metricsTarget}`,
    close: async () => {
      await child.stop();
      removeDir(dir);
      if (schema) await dropSchema(schema);
    },
  };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments left out). */
export function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The metric families a text exposition declares (`# TYPE name type`). */
export function familiesOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
}

/** An OTLP/HTTP receiver: the spans posted to /v1/traces as JSON, in arrival order. */
export async function otlpReceiver() {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.url === '/v1/traces') {
        bodies.push(body);
        for (const resource of JSON.parse(body).resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) spans.push(spanOf(span));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    /** Resolves once `found` holds of the spans received (fails after `timeoutMs`). */
    async until(found: (spans: ExportedSpan[]) => boolean, timeoutMs = HANG_MS): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!found(spans)) {
        if (Date.now() > deadline) throw new Error(`the spans awaited did not arrive within ${timeoutMs} ms; received: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((next) => setTimeout(next, 50));
      }
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function spanOf(span: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: Array<{ key: string; value: OtlpValue }>; status?: { code?: number; message?: string } }): ExportedSpan {
  const attributes: ExportedSpan['attributes'] = {};
  for (const { key, value } of span.attributes ?? []) attributes[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue ?? '';
  return { traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, kind: span.kind, attributes, status: span.status ?? {} };
}
