/**
 * `npm run bench`: every benchmark of the service, one after another, each
 * printing its figures. Figures, never pass/fail tests: a missed target is
 * printed as MISSED and the run goes on. See docs/benchmarks.md.
 *
 * Environment knobs for quick runs while developing: BENCH_SECONDS (per door,
 * default 10), BENCH_MATTERS (default 100000), BENCH_SAMPLE (default 20000),
 * BENCH_EVENTS (default 1000000), BENCH_ENGINE_POOL (default 8000),
 * BENCH_COLD_MATTERS (default 30000), BENCH_POPULATION (default
 * "10000,100000,1000000") with BENCH_POPULATION_JOURNALS (default
 * "sqlite,postgres"), BENCH_ONLY (comma list of bench names).
 */
import { cpus } from 'node:os';

type Bench = () => Promise<string[]>;

// Each loaded only when it runs, so BENCH_ONLY skips the others' imports.
const benches: Array<[string, () => Promise<{ bench: Bench }>]> = [
  ['matters', () => import('./matters.ts')],
  ['cold', () => import('./cold.ts')],
  ['postgres', () => import('./postgres.ts')],
  ['engine', () => import('./engine.ts')],
  ['memory', () => import('./memory.ts')],
  ['restart', () => import('./restart.ts')],
  ['sse', () => import('./sse.ts')],
  ['events-paging', () => import('./events-paging.ts')],
  ['rate-limit', () => import('./rate-limit.ts')],
  ['telemetry', () => import('./telemetry.ts')],
  ['inspector', () => import('./inspector.ts')],
  ['population', () => import('./population.ts')],
  ['retention', () => import('./retention.ts')],
];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const wanted = (name: string) => !only || only.includes(name);

const started = performance.now();
console.log(`legalwork benchmarks — node ${process.version}, ${cpus().length} cores, ${new Date().toISOString()}`);
// bench/lib/service.ts turns them off in every service it spawns; only the rate-limit bench turns the rate limit on, to price it.
console.log('per-caller limits off in every spawned service (LEGALWORK_RATE_LIMIT=off, LEGALWORK_MAX_STREAMS=off) except where the rate-limit bench turns the rate on\n');

let failed = false;
for (const [name, load] of benches) {
  if (!wanted(name)) continue;
  const t = performance.now();
  try {
    const lines = await (await load()).bench();
    console.log(`== ${name} (${((performance.now() - t) / 1000).toFixed(0)} s)\n${lines.join('\n')}\n`);
  } catch (error) {
    failed = true;
    console.log(`== ${name}: the benchmark itself failed\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
}
console.log(`all benchmarks done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exitCode = failed ? 1 : 0;
