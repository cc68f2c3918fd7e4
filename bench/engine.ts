/**
 * The engine alone: the advance run of `bench/matters.ts` without HTTP, layer
 * by layer.
 *
 * A child process builds the service's engine on the embedded journal (the
 * `createServices` the HTTP app runs on) and mints a pool of Matters. Then
 * each layer is driven by 50 concurrent callers, as the HTTP run is by 50
 * connections, four calls per subject, no two calls in flight on one subject:
 *
 * - `journal append`: one stage-like event appended durably to a stream of
 *   its own, through `SqliteJournal.append` (the group commit alone);
 * - `Supervisor.commit`: the machine events of an advance (three ADVANCE,
 *   then ESCALATE) committed on half the pool: transition, facts, durable
 *   append, actor (no mailbox, no Gate, no Gig posted);
 * - `Matters.advance`: the other half advanced as a request does: mailbox,
 *   Gate, Gig post, machine, durable commit.
 *
 * Their figures are what the HTTP door cannot exceed, and they split the cost
 * of an advance: the event loop's share (the thread every request also needs
 * for HTTP), the rest of the process (the journal's writer thread and V8's
 * collector helpers), and the collector's pauses on the event loop.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { ROOT, cpuSecondsOf, removeDir, tempDataDir } from './lib/service.ts';
import { stageEvent } from './lib/stage-event.ts';
import { quantile } from './lib/stats.ts';
import { ms, num, table, us } from './lib/table.ts';

const CONCURRENCY = 50;
const ROUNDS = 4;

export interface LayerFigures {
  layer: string;
  calls: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Event-loop utilisation over the run. */
  elu: number;
  /** CPU per call: the event-loop thread, and the whole process. */
  loopUs: number;
  processUs: number;
  /** Garbage-collection pauses on the event loop, per call. */
  gcPauseUs: number;
}

export interface EngineFigures {
  pool: number;
  createsPerSecond: number;
  layers: LayerFigures[];
}

/** Drives `call(subject, round)` from the concurrent callers, each over its own slice of the subjects, and measures it. */
async function measureLayer(layer: string, subjects: number, call: (subject: number, round: number) => Promise<unknown>): Promise<LayerFigures> {
  // Each layer starts on a collected heap, so none pays for the garbage of the one before (the child runs with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  let gcPauseMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcPauseMs += entry.duration;
  });
  gc.observe({ entryTypes: ['gc'] });
  const latencies: number[] = [];
  const elu0 = performance.eventLoopUtilization();
  const [loop0, process0] = [cpuSecondsOf(process.pid, process.pid), cpuSecondsOf(process.pid)];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, caller) => {
      for (let round = 0; round < ROUNDS; round++) {
        for (let subject = caller; subject < subjects; subject += CONCURRENCY) {
          const t = performance.now();
          await call(subject, round);
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
  const n = latencies.length;
  return {
    layer,
    calls: n,
    perSecond: n / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    elu,
    loopUs: ((loop1 - loop0) * 1e6) / n,
    processUs: ((process1 - process0) * 1e6) / n,
    gcPauseUs: (gcPauseMs * 1000) / n,
  };
}

/** The child's work: runs in its own process so nothing else shares its heap or its loop. */
async function measureHere(dir: string, poolSize: number): Promise<EngineFigures> {
  const { createServices } = await import('../src/compose.ts');
  const { MATTER } = await import('../src/engine/matters.ts');
  const { SqliteJournal } = await import('../src/journal/sqlite.ts');
  const { ADVANCE_BODY, CREATE_BODY } = await import('./matters.ts');
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

  const half = Math.floor(poolSize / 2);
  const { note } = ADVANCE_BODY;
  const layers = [
    await measureLayer('journal append', half, (i, round) =>
      journal.append(grain, [
        { stream: `bench-${i}`, expectedVersion: round, events: [stageEvent(pool[i], note, services.clock.stamp())] },
      ]),
    ),
    await measureLayer('Supervisor.commit', half, async (i, round) => {
      const entity = (await services.supervisor.load(MATTER, pool[i]))!;
      await services.supervisor.commit(entity, [round < 3 ? { type: 'ADVANCE', by: 'agent', note } : { type: 'ESCALATE', gigId: `gg_bench${i}` }]);
    }),
    await measureLayer('Matters.advance', half, (i) => services.matters.advance(grain, pool[half + i], { note })),
  ];
  await journal.close();
  return { pool: poolSize, createsPerSecond, layers };
}

export function measureEngine(poolSize = Number(process.env.BENCH_ENGINE_POOL ?? 8_000)): Promise<EngineFigures> {
  const dir = tempDataDir();
  return new Promise<EngineFigures>((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench/engine.ts'), '--child', dir, String(poolSize)], { cwd: ROOT, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the engine benchmark's child failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as EngineFigures);
    });
  }).finally(() => removeDir(dir));
}

export async function bench(): Promise<string[]> {
  const f = await measureEngine();
  return [
    `The engine alone, no HTTP, layer by layer: ${num(f.pool)} Matters minted (${num(f.createsPerSecond)}/s), then each layer driven by ${CONCURRENCY} concurrent callers, ${ROUNDS} calls per subject, each a durable commit`,
    ...table(
      ['layer', 'calls/s', 'p50', 'p99', 'loop busy', 'loop CPU/call', 'process CPU/call', 'GC pauses/call'],
      f.layers.map((l) => [l.layer, num(l.perSecond), ms(l.p50), ms(l.p99), `${(l.elu * 100).toFixed(0)}%`, us(l.loopUs), us(l.processUs), us(l.gcPauseUs)]),
    ),
    'journal append: one event on a stream of its own; Supervisor.commit: an advance\'s machine events on half the pool (transition, facts, append, actor); Matters.advance: the other half, as a request advances it (mailbox, Gate, Gig post)',
    'loop CPU is the event-loop thread, which an HTTP door also needs for its plumbing; process CPU adds the journal writer and the collector helpers',
  ];
}

if (process.argv[2] === '--child') {
  const figures = await measureHere(process.argv[3], Number(process.argv[4]));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
