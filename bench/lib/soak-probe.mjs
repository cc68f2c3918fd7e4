/**
 * Preloaded into the service by the soak only (`node --import <this file>`,
 * over the IPC channel `spawnService(..., { ipc: true })` opens): the service
 * itself exposes no memory or event-loop figure, and must not grow a debug
 * door for one. Plain JavaScript, so node loads it without the TypeScript
 * loader the service does not run under.
 *
 * Answers two messages from the soak:
 * - `{ probe: 'report' }`: `process.memoryUsage()` and the event-loop delay
 *   histogram since the previous report (`perf_hooks.monitorEventLoopDelay`,
 *   in ms, the timer's resolution still in them), then resets the histogram,
 *   so each report covers exactly one row of the soak;
 * - `{ probe: 'snapshot', path }`: writes a heap snapshot there
 *   (`v8.writeHeapSnapshot`, which stops the loop while it writes), then
 *   answers with the path.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';

const RESOLUTION_MS = Number(process.env.SOAK_PROBE_RESOLUTION_MS ?? 10);

if (process.send) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns) => ns / 1e6;
  process.on('message', (message) => {
    if (message?.probe === 'report') {
      const loop = { max: ms(histogram.max), p99: ms(histogram.percentile(99)), p50: ms(histogram.percentile(50)), count: histogram.count, resolution: RESOLUTION_MS };
      histogram.reset();
      process.send({ probe: 'report', memory: process.memoryUsage(), loop });
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
