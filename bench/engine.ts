/**
 * The engine alone: the advance run of `bench/matters.ts` without HTTP.
 *
 * A child process builds the service's engine on the embedded journal (the
 * `createServices` the HTTP app runs on), mints a pool of Matters and then
 * advances each of them four times from 50 concurrent callers, as the HTTP run
 * does from 50 connections: each call goes through `Matters.advance`
 * (mailbox, Gate, machine, durable group commit), none through Fastify.
 *
 * Its figures are what the HTTP door cannot exceed, and they split the cost
 * of an advance: the event loop's share (the thread every request also needs
 * for HTTP), the rest of the process (the journal's writer thread and V8's
 * collector helpers), and the collector's pauses on the event loop.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { ROOT, cpuSecondsOf, removeDir, tempDataDir } from './lib/service.ts';
import { ms, num, table, us } from './lib/table.ts';

const CONCURRENCY = 50;

export interface EngineFigures {
  pool: number;
  createsPerSecond: number;
  advances: number;
  advancesPerSecond: number;
  p50: number;
  p99: number;
  /** Event-loop utilisation over the advance run. */
  elu: number;
  /** CPU per advance: the event-loop thread, and the whole process. */
  loopUs: number;
  processUs: number;
  /** Garbage-collection pauses on the event loop, per advance. */
  gcPauseUs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The child's work: runs in its own process so nothing else shares its heap or its loop. */
async function measureHere(dir: string, poolSize: number): Promise<EngineFigures> {
  const { createServices } = await import('../src/http/app.ts');
  const { SqliteJournal } = await import('../src/journal/sqlite.ts');
  const { CREATE_BODY } = await import('./matters.ts');
  const journal = new SqliteJournal(dir);
  const services = createServices({ journal });
  const grain = (await services.workspaces.open()).record.id;

  const createStarted = performance.now();
  const pool: string[] = [];
  for (let i = 0; i < poolSize; i += CONCURRENCY) {
    const wave = Array.from({ length: Math.min(CONCURRENCY, poolSize - i) }, () => services.matters.create(grain, CREATE_BODY as never));
    for (const entity of await Promise.all(wave)) pool.push(entity.id);
  }
  const createsPerSecond = poolSize / ((performance.now() - createStarted) / 1000);

  let gcPauseMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauseMs += entry.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const latencies: number[] = [];
  const elu0 = performance.eventLoopUtilization();
  const [loop0, process0] = [cpuSecondsOf(process.pid, process.pid), cpuSecondsOf(process.pid)];
  const started = performance.now();
  // Each caller advances its own slice of the pool in turn, so no two calls in flight touch one Matter.
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, caller) => {
      for (let round = 0; round < 4; round++) {
        for (let i = caller; i < pool.length; i += CONCURRENCY) {
          const t = performance.now();
          await services.matters.advance(grain, pool[i], { note: 'advanced by the benchmark' });
          latencies.push(performance.now() - t);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [loop1, process1] = [cpuSecondsOf(process.pid, process.pid), cpuSecondsOf(process.pid)];
  const elu = performance.eventLoopUtilization(elu0).utilization;
  // Entries already recorded are delivered before the observer disconnects.
  await new Promise((done) => setImmediate(done));
  gc.disconnect();
  await journal.close();

  const n = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    pool: poolSize,
    createsPerSecond,
    advances: n,
    advancesPerSecond: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    elu,
    loopUs: ((loop1 - loop0) * 1e6) / n,
    processUs: ((process1 - process0) * 1e6) / n,
    gcPauseUs: (gcPauseMs * 1000) / n,
  };
}

export function measureEngine(poolSize = Number(process.env.BENCH_ENGINE_POOL ?? 8_000)): Promise<EngineFigures> {
  const dir = tempDataDir();
  return new Promise<EngineFigures>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/engine.ts'), '--child', dir, String(poolSize)], { cwd: ROOT, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the engine benchmark's child failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as EngineFigures);
    });
  }).finally(() => removeDir(dir));
}

export async function bench(): Promise<string[]> {
  const f = await measureEngine();
  return [
    `The engine alone, no HTTP: ${num(f.pool)} Matters minted (${num(f.createsPerSecond)}/s), then ${num(f.advances)} advances from ${CONCURRENCY} concurrent callers, each a durable commit`,
    ...table(
      ['advances/s', 'p50', 'p99', 'loop busy', 'loop CPU/advance', 'process CPU/advance', 'GC pauses/advance'],
      [[num(f.advancesPerSecond), ms(f.p50), ms(f.p99), `${(f.elu * 100).toFixed(0)}%`, us(f.loopUs), us(f.processUs), us(f.gcPauseUs)]],
    ),
    'loop CPU is the event-loop thread, which the HTTP door also needs for its plumbing; process CPU adds the journal writer and the collector helpers',
  ];
}

if (process.argv[2] === '--child') {
  const figures = await measureHere(process.argv[3], Number(process.argv[4]));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
