/**
 * The soak (issues 17 and 38, `npm run soak`): the real service on a fresh
 * data directory under the mixed load of bench/lib/mixed-load.ts, steadily,
 * for 10 minutes (`SOAK_MINUTES`), with a row every 60 s (`SOAK_INTERVAL_S`):
 *
 * - requests answered so far, per second over the interval, Matters opened;
 * - the service's resident memory (VmRSS from /proc);
 * - its heap used and total, external memory and array buffers
 *   (`process.memoryUsage()` in the service) and the event loop's worst delay
 *   and p99 over exactly the interval (`perf_hooks.monitorEventLoopDelay`,
 *   10 ms resolution, subtracted), and the heap in use just after the
 *   interval's last major GC (what the heap holds alive). The service exposes neither, and must not
 *   grow a debug door for them: a probe preloaded only here
 *   (bench/lib/soak-probe.mjs, `node --import`) answers the soak over an IPC
 *   channel at each row;
 * - the garbage collector's pauses in the interval (the longest, any kind, and
 *   the longest major one), reported by the same probe: a stall a GC pause
 *   explains is not the service's code;
 * - the worst event-loop delay of an idle node process beside the service
 *   (the same probe, running nothing else): on a shared machine a loop also
 *   stalls because the process is not scheduled, and this canary shows how
 *   much of the service's worst delay the machine accounts for;
 * - the journal's size on disk (the database, and its WAL beside it);
 * - p99 of `GET /healthz`, sampled every 200 ms from outside, and p50 and p99
 *   of the mixed requests answered in the interval.
 *
 * At the end, a summary table of every row, the totals, and the growth per
 * minute after warm-up: the least-squares slope of RSS, of the heap after
 * major GC (the leak measure: live objects, not garbage awaiting collection),
 * of heap used and of external memory over the rows after the resident pool
 * has filled. Warm-up ends at the
 * first row by which the load has opened `SOAK_RESIDENT_ACTORS` (the
 * service's resident pool, which the soak sets to it: by default 20,000, the
 * service's own default) Matters, each at least one resident actor, or at
 * `SOAK_WARMUP_MIN` minutes when given. Targets (issue 38): growth under
 * 1 MiB a minute after warm-up; the loop's worst delay under 50 ms in every
 * row after the first minute.
 *
 * `SOAK_SNAPSHOTS=10,25` writes a heap snapshot of the service after the rows
 * at those minutes, into `SOAK_SNAPSHOT_DIR` (default: a temp directory,
 * kept), to compare in Chrome's DevTools (Memory, Comparison). Writing one
 * stops the service's loop for seconds: the row after it shows that stall.
 *
 * `SOAK_CPU_PROF=<dir>` runs the service under `node --cpu-prof`, its
 * profile written into that directory when it stops, and then lists the
 * candidate long tasks in it (`longTasks`, bench/lib/profile.ts): what held
 * the loop over 50 ms, and when. The profiler costs the service throughput.
 *
 * `SOAK_NODE_ARGS` adds V8 or Node flags to the service's command line
 * (space-separated, e.g. `--max-semi-space-size=32`), to try how the
 * garbage collector's settings move the loop's stalls.
 *
 * `SOAK_CLIENTS` (default 12) and `SOAK_SEED` set the load. Not part of
 * `npm test`. The load generator runs on the same machine as the service: on
 * 2 cores they share the CPU, and the figures say as much about this machine
 * as about the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MixedLoad, seededRng, seedFrom, topLevelOperator } from './lib/mixed-load.ts';
import { longTasks, type CpuProfile } from './lib/profile.ts';
import { removeDir, ROOT, spawnService, tempDataDir } from './lib/service.ts';
import { slope } from './lib/slope.ts';
import { quantile } from './lib/stats.ts';
import { table, verdict } from './lib/table.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const INTERVAL_S = Number(process.env.SOAK_INTERVAL_S ?? 60);
const PROFILE_DIR = process.env.SOAK_CPU_PROF;
const NODE_ARGS = (process.env.SOAK_NODE_ARGS ?? '').split(' ').filter(Boolean);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 12);
const SEED = seedFrom(process.env.SOAK_SEED);
const RESIDENT_ACTORS = Number(process.env.SOAK_RESIDENT_ACTORS ?? 20_000);
const WARMUP_MIN = process.env.SOAK_WARMUP_MIN ? Number(process.env.SOAK_WARMUP_MIN) : undefined;
const SNAPSHOTS = (process.env.SOAK_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number);
const HEALTH_EVERY_MS = 200;
/** How long the probe may take to answer: a loop stalled longer than this is a finding, not a hang. */
const PROBE_TIMEOUT_MS = 60_000;
const GROWTH_TARGET_MIB = 1;
const LOOP_TARGET_MS = 50;

if (!(MINUTES > 0) || !(INTERVAL_S > 0)) throw new Error('SOAK_MINUTES and SOAK_INTERVAL_S must be positive numbers');
if (SNAPSHOTS.some((m) => !(m > 0))) throw new Error(`SOAK_SNAPSHOTS is a list of minutes, got ${process.env.SOAK_SNAPSHOTS}`);

const MiB = (bytes: number) => bytes / 1024 / 1024;
const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

interface ProbeReport {
  memory: NodeJS.MemoryUsage;
  loop: { max: number; p99: number; p50: number; count: number; resolution: number };
  gc: { max: number; majorMax: number; total: number; count: number; heapAfterMajor: number | null };
}

/** Sends the preloaded probe of a process one message, and waits for its answer. */
function ask<T>(proc: ChildProcess, message: Record<string, unknown>): Promise<T> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      proc.off('message', listen);
      fail(new Error(`the service's probe did not answer ${JSON.stringify(message)} within ${PROBE_TIMEOUT_MS} ms`));
    }, PROBE_TIMEOUT_MS);
    const listen = (answer: any) => {
      if (answer?.probe !== message.probe) return;
      clearTimeout(timer);
      proc.off('message', listen);
      ok(answer as T);
    };
    proc.on('message', listen);
    proc.send(message);
  });
}

interface Row {
  elapsed: number;
  requests: number;
  rps: number;
  matters: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  heapAfterMajor: number;
  external: number;
  arrayBuffers: number;
  loopMax: number;
  loopP99: number;
  gcMax: number;
  gcMajorMax: number;
  canaryMax: number;
  journal: number;
  wal: number;
  healthP99: number;
  p50: number;
  p99: number;
  non2xx: number;
  faults: number;
}

async function main() {
  const dir = tempDataDir('legalwork-soak-');
  const operator = topLevelOperator(dir);
  const probe = pathToFileURL(join(ROOT, 'bench/lib/soak-probe.mjs')).href;
  const child = await spawnService(dir, { ...operator.env, LEGALWORK_REPLY_CHECK: '0', LEGALWORK_RESIDENT_ACTORS: String(RESIDENT_ACTORS) }, [...NODE_ARGS, '--import', probe, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])], { ipc: true });
  const canary = spawn(process.execPath, ['--import', probe, '-e', 'setInterval(() => {}, 2 ** 30)'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // Never left behind, even when the soak fails (the service exited, the probe did not answer).
  process.once('exit', () => {
    canary.kill();
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
  });
  console.log(`soak: ${MINUTES} min at ${CLIENTS} clients, a row every ${INTERVAL_S} s; seed ${SEED}; service pid ${child.pid} on ${child.url}, data ${dir}`);
  const load = new MixedLoad({ rng: seededRng(SEED), operator, clients: CLIENTS, keepAcks: false, keepSamples: true });
  await load.setup(child.url);

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

  let snapshotDir: string | undefined;
  const snapshotsLeft = [...SNAPSHOTS].sort((a, b) => a - b);
  // Resets the histograms: the first row starts with the load.
  await Promise.all([ask<ProbeReport>(child.proc, { probe: 'report' }), ask<ProbeReport>(canary, { probe: 'report' })]);
  const run = load.run(child.url, { stopOnNetworkError: false });
  const started = performance.now();
  /** The load's start on the CPU profile's clock (CLOCK_MONOTONIC, µs). */
  const startedUs = Number(process.hrtime.bigint() / 1000n);
  const rows: Row[] = [];
  const header = ['elapsed', 'requests', 'req/s', 'Matters', 'RSS MiB', 'heap used / total MiB', 'heap after major GC MiB', 'external / arrayBuffers MiB', 'loop worst / p99 ms', 'GC pause worst / major ms', 'canary loop worst ms', 'journal + WAL MiB', '/healthz p99 ms', 'p50 ms', 'p99 ms', 'non-2xx', '5xx'];
  const fmt = (r: Row) => [
    `${(r.elapsed / 60).toFixed(1)} min`,
    r.requests.toLocaleString('en-US'),
    r.rps.toFixed(0),
    r.matters.toLocaleString('en-US'),
    MiB(r.rss).toFixed(0),
    `${MiB(r.heapUsed).toFixed(0)} / ${MiB(r.heapTotal).toFixed(0)}`,
    Number.isNaN(r.heapAfterMajor) ? '-' : MiB(r.heapAfterMajor).toFixed(0),
    `${MiB(r.external).toFixed(1)} / ${MiB(r.arrayBuffers).toFixed(1)}`,
    `${r.loopMax.toFixed(0)} / ${r.loopP99.toFixed(1)}`,
    `${r.gcMax.toFixed(0)} / ${r.gcMajorMax.toFixed(0)}`,
    r.canaryMax.toFixed(0),
    `${MiB(r.journal).toFixed(0)} + ${MiB(r.wal).toFixed(1)}`,
    r.healthP99.toFixed(1),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.non2xx),
    String(r.faults),
  ];
  console.log(header.join(' | '));
  let lastRequests = load.requests;
  let lastAt = started;
  const end = started + MINUTES * 60_000;
  while (performance.now() < end - 1000) {
    await new Promise((r) => setTimeout(r, Math.min(INTERVAL_S * 1000, end - performance.now())));
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) throw new Error(`the service exited (${child.proc.exitCode ?? child.proc.signalCode}):\n${child.stderr().slice(-3000)}`);
    const [report, idle] = await Promise.all([ask<ProbeReport>(child.proc, { probe: 'report' }), ask<ProbeReport>(canary, { probe: 'report' })]);
    const now = performance.now();
    const samples = load.takeSamples();
    const ms = samples.map((s) => s.ms);
    const { memory, loop, gc } = report;
    const row: Row = {
      elapsed: (now - started) / 1000,
      requests: load.requests,
      rps: (load.requests - lastRequests) / ((now - lastAt) / 1000),
      matters: load.matters.size,
      rss: child.memory().rss,
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      heapAfterMajor: gc.heapAfterMajor ?? NaN,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      loopMax: Math.max(0, loop.max - loop.resolution),
      loopP99: Math.max(0, loop.p99 - loop.resolution),
      gcMax: gc.max,
      gcMajorMax: gc.majorMax,
      canaryMax: Math.max(0, idle.loop.max - idle.loop.resolution),
      journal: fileSize(join(dir, 'journal.db')),
      wal: fileSize(join(dir, 'journal.db-wal')),
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
    while (snapshotsLeft.length && row.elapsed / 60 >= snapshotsLeft[0] - 0.05) {
      const minute = snapshotsLeft.shift()!;
      snapshotDir ??= process.env.SOAK_SNAPSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'legalwork-soak-heap-'));
      const written = await ask<{ path: string; ms: number }>(child.proc, { probe: 'snapshot', path: join(snapshotDir, `soak-${minute}min.heapsnapshot`) });
      console.log(`heap snapshot at ${minute} min: ${written.path} (the loop stopped ${(written.ms / 1000).toFixed(1)} s to write it)`);
    }
  }
  run.stop();
  const stats = await run.done;
  sampling = false;
  await sampler;
  await child.stop();
  const exit = await child.exited;
  canary.kill();

  console.log('\nsoak summary');
  console.log(table(header, rows.map(fmt)).join('\n'));
  const seconds = (performance.now() - started) / 1000;
  const byStatus = Object.entries(stats.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');

  // Warm-up: until the pool has filled (or as told); the growth is fitted over the rows after it.
  const filledAt = rows.findIndex((r) => r.matters >= RESIDENT_ACTORS);
  const warmupEnd = WARMUP_MIN !== undefined ? WARMUP_MIN * 60 : filledAt >= 0 ? rows[filledAt].elapsed : Infinity;
  const after = rows.filter((r) => r.elapsed > warmupEnd + 1);
  const minutes = after.map((r) => r.elapsed / 60);
  const growth = (pick: (r: Row) => number) => {
    const known = after.filter((r) => !Number.isNaN(pick(r)));
    return slope(known.map((r) => r.elapsed / 60), known.map((r) => MiB(pick(r))));
  };
  const rssSlope = growth((r) => r.rss);
  const heapSlope = growth((r) => r.heapUsed);
  const liveSlope = growth((r) => r.heapAfterMajor);
  const externalSlope = growth((r) => r.external);
  const growthLine =
    after.length >= 3
      ? `growth after warm-up (the first ${(warmupEnd / 60).toFixed(1)} min, ${WARMUP_MIN !== undefined ? 'SOAK_WARMUP_MIN' : `until ${RESIDENT_ACTORS.toLocaleString('en-US')} Matters were opened`}), least squares over ${after.length} rows (${minutes[0].toFixed(1)}-${minutes[minutes.length - 1].toFixed(1)} min): RSS ${rssSlope.toFixed(2)} MiB/min, heap after major GC ${liveSlope.toFixed(2)} MiB/min, heap used ${heapSlope.toFixed(2)} MiB/min, external ${externalSlope.toFixed(2)} MiB/min; target < ${GROWTH_TARGET_MIB} MiB/min: RSS ${verdict(rssSlope < GROWTH_TARGET_MIB)}, heap after major GC ${verdict(liveSlope < GROWTH_TARGET_MIB)}`
      : `growth after warm-up: not measured (${after.length} rows after a warm-up of ${Number.isFinite(warmupEnd) ? `${(warmupEnd / 60).toFixed(1)} min` : `more than the run: fewer than ${RESIDENT_ACTORS.toLocaleString('en-US')} Matters were opened`}; at least 3 are needed)`;
  const later = rows.filter((r) => r.elapsed > 61);
  const worstLoop = Math.max(...later.map((r) => r.loopMax));
  console.log(
    [
      `${load.requests.toLocaleString('en-US')} requests in ${(seconds / 60).toFixed(1)} min (${(load.requests / seconds).toFixed(0)}/s), ${load.ackCount.toLocaleString('en-US')} writes acknowledged, ${load.matters.size.toLocaleString('en-US')} Matters opened; answers ${byStatus}; ${stats.unanswered} unanswered`,
      `RSS ${MiB(rows[0]?.rss ?? 0).toFixed(0)} MiB at the first row -> ${MiB(rows[rows.length - 1]?.rss ?? 0).toFixed(0)} MiB at the last; heap used ${MiB(rows[0]?.heapUsed ?? 0).toFixed(0)} -> ${MiB(rows[rows.length - 1]?.heapUsed ?? 0).toFixed(0)} MiB; journal ${MiB(rows[rows.length - 1]?.journal ?? 0).toFixed(0)} MiB + WAL ${MiB(rows[rows.length - 1]?.wal ?? 0).toFixed(1)} MiB`,
      growthLine,
      later.length
        ? `event loop after the first minute: worst delay ${worstLoop.toFixed(0)} ms (rows over ${LOOP_TARGET_MS} ms: ${later.filter((r) => r.loopMax >= LOOP_TARGET_MS).length} of ${later.length}); target < ${LOOP_TARGET_MS} ms: ${verdict(worstLoop < LOOP_TARGET_MS)}; the idle canary's worst ${Math.max(...later.map((r) => r.canaryMax)).toFixed(0)} ms, the longest GC pause ${Math.max(...later.map((r) => r.gcMax)).toFixed(0)} ms; request p99 at worst ${Math.max(...rows.map((r) => r.p99)).toFixed(1)} ms`
        : 'event loop after the first minute: no row',
      `5xx (or 2xx without a body): ${load.faults.length}; the service stopped with exit code ${exit}`,
    ].join('\n'),
  );
  for (const f of load.faults.slice(0, 10)) console.log(`  ${f.status} ${f.method} ${f.path}: ${f.body.slice(0, 300)}`);
  if (PROFILE_DIR) reportLongTasks(PROFILE_DIR, startedUs);
  if (snapshotDir) console.log(`heap snapshots kept in ${snapshotDir}`);
  removeDir(dir);
  if (load.faults.length || exit !== 0) process.exitCode = 1;
}

/** The candidate long tasks of the service's CPU profile (the newest in `dir`), the longest first, each at its minute of the load. */
function reportLongTasks(dir: string, startedUs: number) {
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().pop();
  if (!file) return console.log(`long tasks: no CPU profile in ${dir}`);
  const tasks = longTasks(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, LOOP_TARGET_MS).sort((a, b) => b.ms - a.ms);
  console.log(`\ncandidate long tasks over ${LOOP_TARGET_MS} ms in ${join(dir, file)}: ${tasks.length}`);
  for (const t of tasks.slice(0, 15)) {
    console.log(`- ${t.ms.toFixed(0)} ms at ${((t.atUs - startedUs) / 60e6).toFixed(2)} min (longest gap between samples ${t.longestGapMs.toFixed(0)} ms)\n    in: ${t.shared.slice(-5).join(' > ')}\n    self: ${t.self.join('; ')}`);
  }
}

await main();
