/**
 * The event loop's delay as a Prometheus histogram, from Node's own
 * `perf_hooks.monitorEventLoopDelay`: a timer every `RESOLUTION_MS` whose
 * lateness libuv records in an HDR histogram, off the JavaScript thread's
 * work. At each scrape the samples since the last one are added to
 * cumulative buckets (how many waited at most each bound, read off the HDR
 * histogram's percentiles), and the HDR histogram starts afresh.
 *
 * A histogram rather than prom-client's percentile gauges: buckets add up
 * across the processes of `serve --processes N` and across time, so
 * `histogram_quantile(0.99, rate(…_bucket[5m]))` is a true quantile of the
 * window asked for, where an average of per-process percentiles is not one.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the loop is sampled: Node's default. A sample is the timer's lateness beyond it. */
const RESOLUTION_MS = 10;

export const EVENT_LOOP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

export interface BucketCounts {
  /** Cumulative counts, one per bound of `EVENT_LOOP_BUCKETS`. */
  buckets: number[];
  count: number;
  /** Seconds. */
  sum: number;
}

/** Starts sampling; `drain` adds the samples since its last call to the totals it answers. */
export function eventLoopDelay(): { drain(): BucketCounts; stop(): void } {
  const monitor = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  monitor.enable();
  const resolutionNs = RESOLUTION_MS * 1e6;
  const totals: BucketCounts = { buckets: EVENT_LOOP_BUCKETS.map(() => 0), count: 0, sum: 0 };
  // The largest percentile whose sample is at most `bound` ns late: a binary search over the HDR histogram (its own precision, 3 digits).
  const share = (boundNs: number): number => {
    if (monitor.percentile(100) - resolutionNs <= boundNs) return 1;
    if (monitor.percentile(0.001) - resolutionNs > boundNs) return 0;
    let low = 0.001;
    let high = 100;
    for (let i = 0; i < 20; i++) {
      const mid = (low + high) / 2;
      if (monitor.percentile(mid) - resolutionNs <= boundNs) low = mid;
      else high = mid;
    }
    return low / 100;
  };
  return {
    drain() {
      const count = monitor.count;
      if (count > 0) {
        EVENT_LOOP_BUCKETS.forEach((bound, i) => (totals.buckets[i] += Math.round(count * share(bound * 1e9))));
        totals.count += count;
        totals.sum += Math.max(0, monitor.mean - resolutionNs) * count / 1e9;
        monitor.reset();
      }
      return totals;
    },
    stop: () => monitor.disable(),
  };
}
