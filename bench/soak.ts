/**
 * The soak (issue 17, `npm run soak`): the real service on a fresh data
 * directory under the mixed load of bench/lib/mixed-load.ts, steadily, for
 * 10 minutes (`SOAK_MINUTES`), with a row every 30 s (`SOAK_INTERVAL_S`):
 *
 * - requests answered so far, and per second over the interval;
 * - the service's resident memory (VmRSS from /proc) and its peak (VmHWM);
 * - the journal's size on disk (the database, and its WAL beside it);
 * - the service's event-loop delay: measured inside the process by
 *   `perf_hooks.monitorEventLoopDelay` (10 ms resolution, subtracted), which
 *   a preloaded module (`--import data:…`, nothing of the service changed)
 *   reports on stderr every second; the service itself exposes no such
 *   figure. Beside it, from outside, the latency of `GET /healthz` sampled
 *   every 200 ms;
 * - p50 and p99 latency of the mixed requests answered in the interval.
 *
 * At the end a summary table of every row, and the totals. `SOAK_CLIENTS`
 * (default 12) and `SOAK_SEED` set the load. Not part of `npm test`. The
 * load generator runs on the same machine as the service: on 2 cores they
 * share the CPU, and the figures say so much about this machine as about
 * the service.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { MixedLoad, seededRng, seedFrom, topLevelOperator } from './lib/mixed-load.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { quantile } from './lib/stats.ts';
import { table } from './lib/table.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const INTERVAL_S = Number(process.env.SOAK_INTERVAL_S ?? 30);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 12);
const SEED = seedFrom(process.env.SOAK_SEED);
const LOOP_RESOLUTION_MS = 10;
const HEALTH_EVERY_MS = 200;

if (!(MINUTES > 0) || !(INTERVAL_S > 0)) throw new Error('SOAK_MINUTES and SOAK_INTERVAL_S must be positive numbers');

/** Preloaded into the service: its event-loop delay histogram, reported and reset every second on stderr. */
const LOOP_MONITOR = `data:text/javascript,${encodeURIComponent(`
import { monitorEventLoopDelay } from 'node:perf_hooks';
const h = monitorEventLoopDelay({ resolution: ${LOOP_RESOLUTION_MS} });
h.enable();
setInterval(() => {
  process.stderr.write('soak-loop-delay ' + JSON.stringify({ p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6, n: h.count }) + '\\n');
  h.reset();
}, 1000).unref();
`)}`;

const MiB = (bytes: number) => bytes / 1024 / 1024;
const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

interface Row {
  elapsed: number;
  requests: number;
  rps: number;
  rss: number;
  peak: number;
  journal: number;
  wal: number;
  loopP99: number;
  loopMax: number;
  healthP50: number;
  healthP99: number;
  p50: number;
  p99: number;
  non2xx: number;
  faults: number;
}

async function main() {
  const dir = tempDataDir('legalwork-soak-');
  const operator = topLevelOperator(dir);
  const child = await spawnService(dir, { ...operator.env, LEGALWORK_REPLY_CHECK: '0' }, ['--import', LOOP_MONITOR]);
  console.log(`soak: ${MINUTES} min at ${CLIENTS} clients, a row every ${INTERVAL_S} s; seed ${SEED}; service pid ${child.pid} on ${child.url}, data ${dir}`);
  const load = new MixedLoad({ rng: seededRng(SEED), operator, clients: CLIENTS, keepAcks: false, keepSamples: true });
  await load.setup(child.url);

  // The event-loop delay lines the preload writes, read as they come.
  let stderrRead = 0;
  const loopLines = () => {
    const err = child.stderr();
    const fresh = err.slice(stderrRead);
    stderrRead = err.length - (fresh.length - fresh.lastIndexOf('\n') - 1);
    return [...fresh.matchAll(/^soak-loop-delay (.*)$/gm)].map((m) => JSON.parse(m[1]) as { p50: number; p99: number; max: number });
  };

  // /healthz from outside, every 200 ms.
  let health: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${child.url}/healthz`);
        await res.arrayBuffer();
        if (res.ok) health.push(performance.now() - t0);
      } catch {
        // counted among the faults below if the service is gone
      }
      await new Promise((r) => setTimeout(r, HEALTH_EVERY_MS));
    }
  })();

  const run = load.run(child.url, { stopOnNetworkError: false });
  const started = performance.now();
  const rows: Row[] = [];
  const header = ['elapsed', 'requests', 'req/s', 'RSS MiB', 'peak MiB', 'journal + WAL MiB', 'loop delay p99 / max ms', '/healthz p50 / p99 ms', 'p50 ms', 'p99 ms', 'non-2xx', '5xx'];
  const fmt = (r: Row) => [
    `${(r.elapsed / 60).toFixed(1)} min`,
    r.requests.toLocaleString('en-US'),
    r.rps.toFixed(0),
    MiB(r.rss).toFixed(0),
    MiB(r.peak).toFixed(0),
    `${MiB(r.journal).toFixed(1)} + ${MiB(r.wal).toFixed(1)}`,
    `${r.loopP99.toFixed(1)} / ${r.loopMax.toFixed(1)}`,
    `${r.healthP50.toFixed(1)} / ${r.healthP99.toFixed(1)}`,
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.non2xx),
    String(r.faults),
  ];
  console.log(header.join(' | '));
  let lastRequests = load.requests;
  let lastAt = started;
  const end = started + MINUTES * 60_000;
  while (performance.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(INTERVAL_S * 1000, end - performance.now())));
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) throw new Error(`the service exited (${child.proc.exitCode ?? child.proc.signalCode}):\n${child.stderr().slice(-3000)}`);
    const now = performance.now();
    const samples = load.takeSamples();
    const ms = samples.map((s) => s.ms);
    const loops = loopLines();
    const mem = child.memory();
    const row: Row = {
      elapsed: (now - started) / 1000,
      requests: load.requests,
      rps: (load.requests - lastRequests) / ((now - lastAt) / 1000),
      rss: mem.rss,
      peak: mem.peak,
      journal: fileSize(join(dir, 'journal.db')),
      wal: fileSize(join(dir, 'journal.db-wal')),
      loopP99: Math.max(0, Math.max(...loops.map((l) => l.p99), 0) - LOOP_RESOLUTION_MS),
      loopMax: Math.max(0, Math.max(...loops.map((l) => l.max), 0) - LOOP_RESOLUTION_MS),
      healthP50: health.length ? quantile(health, 0.5) : NaN,
      healthP99: health.length ? quantile(health, 0.99) : NaN,
      p50: ms.length ? quantile(ms, 0.5) : NaN,
      p99: ms.length ? quantile(ms, 0.99) : NaN,
      non2xx: samples.filter((s) => s.status >= 300).length,
      faults: load.faults.length,
    };
    health = [];
    lastRequests = load.requests;
    lastAt = now;
    rows.push(row);
    console.log(fmt(row).join(' | '));
  }
  run.stop();
  const stats = await run.done;
  sampling = false;
  await sampler;
  const final = child.memory();
  await child.stop();
  const exit = await child.exited;

  console.log('\nsoak summary');
  console.log(table(header, rows.map(fmt)).join('\n'));
  const seconds = (performance.now() - started) / 1000;
  const byStatus = Object.entries(stats.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
  console.log(
    [
      `${load.requests.toLocaleString('en-US')} requests in ${(seconds / 60).toFixed(1)} min (${(load.requests / seconds).toFixed(0)}/s), ${load.ackCount.toLocaleString('en-US')} writes acknowledged, ${load.matters.size.toLocaleString('en-US')} Matters opened; answers ${byStatus}; ${stats.unanswered} unanswered`,
      `RSS ${MiB(rows[0]?.rss ?? 0).toFixed(0)} MiB at the first row -> ${MiB(final.rss).toFixed(0)} MiB at the end (peak ${MiB(final.peak).toFixed(0)} MiB); journal ${MiB(rows[rows.length - 1]?.journal ?? 0).toFixed(1)} MiB + WAL ${MiB(rows[rows.length - 1]?.wal ?? 0).toFixed(1)} MiB`,
      `worst interval: loop delay p99 ${Math.max(...rows.map((r) => r.loopP99)).toFixed(1)} ms (max ${Math.max(...rows.map((r) => r.loopMax)).toFixed(1)} ms), request p99 ${Math.max(...rows.map((r) => r.p99)).toFixed(1)} ms`,
      `5xx (or 2xx without a body): ${load.faults.length}; the service stopped with exit code ${exit}`,
    ].join('\n'),
  );
  for (const f of load.faults.slice(0, 10)) console.log(`  ${f.status} ${f.method} ${f.path}: ${f.body.slice(0, 300)}`);
  removeDir(dir);
  if (load.faults.length || exit !== 0) process.exitCode = 1;
}

await main();
