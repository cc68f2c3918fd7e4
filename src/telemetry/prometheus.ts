/**
 * The metrics port's sink on prom-client: the instruments the service
 * declares (`src/lib/telemetry.ts`), Node's process metrics (heap, RSS, GC
 * pauses by kind, handles) and the event loop's delay as a histogram, in one
 * registry, written in the Prometheus text format, or OpenMetrics when the
 * scraper asks for it.
 *
 * prom-client rather than OpenTelemetry's metrics SDK with its Prometheus
 * exporter: the service serves one format to one scraper, and prom-client
 * writes it directly (no views, readers or temporality to configure), its
 * cluster registry aggregates the processes of `serve --processes N` over
 * Node's own IPC, and its process metrics are the ones dashboards for Node
 * already name (`process_resident_memory_bytes`, `nodejs_gc_duration_seconds`).
 */
import client from 'prom-client';
import type { GaugeSpec, HistogramSpec, Labels, MetricSpec, MetricsSink } from '../lib/telemetry.ts';
import { EVENT_LOOP_BUCKETS, eventLoopDelay } from './event-loop.ts';

const { AggregatorRegistry, Counter, Gauge, Histogram, Registry } = client;

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;

/** GC pauses: most minor collections take well under a millisecond, a major one of a large heap tens. */
const GC_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export interface PrometheusMetrics {
  sink: MetricsSink;
  /** The metrics as text, in OpenMetrics when `openMetrics`: what `GET /metrics` answers. */
  scrape(openMetrics: boolean): Promise<{ contentType: string; body: string }>;
  /** The registry itself: a cluster worker hands it to its primary (`cluster-metrics.ts`). */
  registry: client.Registry;
  /** Stops sampling the event loop. */
  stop(): void;
}

export function prometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  client.collectDefaultMetrics({ register: registry, gcDurationBuckets: GC_BUCKETS });
  const loop = eventLoopDelay();
  registry.registerMetric(eventLoopHistogram(loop.drain));
  const sink: MetricsSink = {
    counter<L extends string>(spec: MetricSpec<L>) {
      const metric = new Counter({ name: spec.name, help: spec.help, labelNames: spec.labelNames ?? [], registers: [registry] });
      return (labels: Labels<L> | undefined, value: number) => (labels ? metric.inc(labels, value) : metric.inc(value));
    },
    histogram<L extends string>(spec: HistogramSpec<L>) {
      const metric = new Histogram({ name: spec.name, help: spec.help, labelNames: spec.labelNames ?? [], buckets: [...spec.buckets], registers: [registry] });
      return (value: number, labels: Labels<L> | undefined) => (labels ? metric.observe(labels, value) : metric.observe(value));
    },
    gauge(spec: GaugeSpec, read: () => number) {
      new Gauge({
        name: spec.name,
        help: spec.help,
        registers: [registry],
        aggregator: spec.aggregate,
        collect() {
          this.set(read());
        },
      });
    },
  };
  return {
    sink,
    async scrape(openMetrics) {
      if (!openMetrics) return { contentType: PROMETHEUS_CONTENT_TYPE, body: await registry.metrics() };
      // Written from a copy, so the registry's own metrics stay as declared: OpenMetrics names a counter's family without
      // `_total` and its sample with it (prom-client adds the suffix to each sample, so the family is given without it).
      const families = (await registry.getMetricsAsJSON()).map((m) => (String(m.type) === 'counter' ? { ...m, name: m.name.replace(/_total$/, '') } : m));
      const copy = AggregatorRegistry.aggregate([families]);
      copy.setContentType(OPENMETRICS_CONTENT_TYPE);
      return { contentType: OPENMETRICS_CONTENT_TYPE, body: await copy.metrics() };
    },
    registry,
    stop: loop.stop,
  };
}

/** `legalwork_event_loop_delay_seconds`, as prom-client's registry reads a metric: buckets drained from `monitorEventLoopDelay` at each scrape. */
/** In a cluster worker: answers the primary's requests for this process's metrics (prom-client's cluster registry, over Node's IPC). */
export function shareWithPrimary(registry: client.Registry): void {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/**
 * In the primary of `serve --processes N`: every worker's metrics, added up
 * (counters and histograms summed, each gauge as it declares), in the
 * Prometheus text format.
 */
export function clusterScrape(): () => Promise<{ contentType: string; body: string }> {
  const aggregator = new AggregatorRegistry();
  return async () => ({ contentType: PROMETHEUS_CONTENT_TYPE, body: await aggregator.clusterMetrics() });
}

function eventLoopHistogram(drain: ReturnType<typeof eventLoopDelay>['drain']) {
  const name = 'legalwork_event_loop_delay_seconds';
  const help = 'How late the event loop ran a timer (perf_hooks.monitorEventLoopDelay, sampled every 10 ms): the time a ready callback waits for the loop.';
  const get = async () => {
    const { buckets, count, sum } = drain();
    const bucket = `${name}_bucket`;
    return {
      name,
      help,
      type: 'histogram' as const,
      aggregator: 'sum' as const,
      values: [
        ...EVENT_LOOP_BUCKETS.map((le, i) => ({ labels: { le }, value: buckets[i], metricName: bucket })),
        { labels: { le: '+Inf' }, value: count, metricName: bucket },
        { labels: {}, value: sum, metricName: `${name}_sum` },
        { labels: {}, value: count, metricName: `${name}_count` },
      ],
    };
  };
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined } as unknown as client.Metric;
}
