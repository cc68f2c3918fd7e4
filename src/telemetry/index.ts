/**
 * Telemetry as the service starts it (loaded only when the settings turn some on: `settings.ts`): metrics (prom-client, served on the
 * operator's address) and traces (OpenTelemetry), each off unless the
 * environment turns it on, installed behind the port the engine, the journal
 * and the HTTP edge report through (`src/lib/telemetry.ts`).
 *
 * Under `serve --processes N` each worker records its own metrics and hands
 * them to the primary, which alone listens on the metrics address and
 * answers a scrape with every worker's added up; each worker exports its own
 * spans.
 */
import { installMetrics, installTracing } from '../lib/telemetry.ts';
import { serveMetrics } from './metrics-door.ts';
import { clusterScrape, prometheusMetrics, shareWithPrimary } from './prometheus.ts';
import type { TelemetrySettings } from './settings.ts';
import { startTracing } from './tracing.ts';
import type { FastifyInstance } from 'fastify';

/** Which process this is: the only one, a worker of `--processes N`, or their primary. */
export type ProcessRole = 'single' | 'worker' | 'primary';

export interface RunningTelemetry {
  /** Registers the request span on an app before its routes (tracing on); absent, nothing to register. */
  instrument?: (app: FastifyInstance) => Promise<void>;
  /** Where the metrics door listens, in the process that serves it. */
  metricsAddress?: string;
  /** Closes the door and flushes the spans still buffered. */
  stop(): Promise<void>;
}

export async function startTelemetry(settings: TelemetrySettings, role: ProcessRole = 'single'): Promise<RunningTelemetry> {
  const stops: Array<() => Promise<void> | void> = [];
  let metricsAddress: string | undefined;
  if (settings.metrics) {
    let scrape: (openMetrics: boolean) => Promise<{ contentType: string; body: string }>;
    if (role === 'primary') scrape = clusterScrape();
    else {
      const metrics = prometheusMetrics();
      installMetrics(metrics.sink);
      stops.push(metrics.stop);
      if (role === 'worker') shareWithPrimary(metrics.registry);
      scrape = metrics.scrape;
    }
    if (role !== 'worker') {
      const door = await serveMetrics(settings.metrics, scrape);
      metricsAddress = door.address;
      stops.push(door.close);
    }
  }
  let instrument: RunningTelemetry['instrument'];
  if (settings.tracing && role !== 'primary') {
    const tracing = startTracing();
    installTracing(tracing.tracer);
    instrument = tracing.instrument;
    stops.push(tracing.stop);
  }
  return {
    instrument,
    metricsAddress,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
