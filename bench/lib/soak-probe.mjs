/**
 * Preloaded into the service by the soak only (`node --import <this file>`,
 * over the IPC channel `spawnService(..., { ipc: true })` opens): the service
 * itself exposes no memory or event-loop figure, and must not grow a debug
 * door for one. Plain JavaScript, so node loads it without the TypeScript
 * loader the service does not run under.
 *
 * Answers two messages from the soak:
 * - `{ probe: 'report' }`: `process.memoryUsage()`, the event-loop delay
 *   histogram since the previous report (`perf_hooks.monitorEventLoopDelay`,
 *   in ms, the timer's resolution still in them) and the garbage collector's
 *   pauses since then (the longest, their sum, and the longest major one:
 *   a stall of the loop that a GC pause explains is not the service's code),
 *   and the heap in use just after the last major GC of the interval (what
 *   the heap holds alive: `heapUsed` at a random instant also counts garbage
 *   not yet collected, and swings by hundreds of MiB),
 *   then starts both afresh, so each report covers exactly one row of the soak;
 * - `{ probe: 'snapshot', path }`: writes a heap snapshot there
 *   (`v8.writeHeapSnapshot`, which stops the loop while it writes), then
 *   answers with the path.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const RESOLUTION_MS = Number(process.env.SOAK_PROBE_RESOLUTION_MS ?? 10);

if (process.send) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns) => ns / 1e6;
  const freshGc = () => ({ max: 0, majorMax: 0, total: 0, count: 0, heapAfterMajor: null });
  let gc = freshGc();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.max = Math.max(gc.max, entry.duration);
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.majorMax = Math.max(gc.majorMax, entry.duration);
        // Read as the entry is delivered, soon after the collection: little is allocated in between.
        gc.heapAfterMajor = getHeapStatistics().used_heap_size;
      }
      gc.total += entry.duration;
      gc.count += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (message) => {
    if (message?.probe === 'report') {
      const loop = { max: ms(histogram.max), p99: ms(histogram.percentile(99)), p50: ms(histogram.percentile(50)), count: histogram.count, resolution: RESOLUTION_MS };
      histogram.reset();
      process.send({ probe: 'report', memory: process.memoryUsage(), loop, gc });
      gc = freshGc();
    } else if (message?.probe === 'snapshot') {
      const started = performance.now();
      const path = writeHeapSnapshot(message.path);
      process.send({ probe: 'snapshot', path, ms: performance.now() - started });
    }
  });
  // The channel must not keep the service alive: it drains and exits on
  // SIGTERM when its own work is done, as it does without the probe.
  process.channel?.unref();
}
