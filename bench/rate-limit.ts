/**
 * What the per-caller rate limit costs (`src/http/rate-limit.ts`): the same
 * door on three service processes that differ only in it, driven one after
 * another at 50 connections by one caller:
 *
 * - limits off (`LEGALWORK_RATE_LIMIT=off`, as every other benchmark runs);
 * - on, counted in the process's memory (the default without Redis);
 * - on, counted in Redis (`LEGALWORK_REDIS_URL`, as several processes share it).
 *
 * The limit is set far above what one process can answer (1,000,000 per
 * second), so nothing is refused and every row is the limiter's cost alone: a
 * row that saw a 429 says so. Two doors: a keyed top-level read (the limiter
 * resolves the key itself, ahead of auth) and a keyless read inside a sandbox
 * workspace (counted by the grain).
 *
 * The machine is shared, so each door is measured in rounds (BENCH_RATE_LIMIT_ROUNDS,
 * default 3), the three services in a rotated order each round, and each row
 * is the median round (by CPU per request, the steadier figure); BENCH_SECONDS
 * is per run.
 *
 * Runs inside `npm run bench` (BENCH_ONLY=rate-limit), or alone:
 * `node --import tsx bench/rate-limit.ts`. Redis at LEGALWORK_BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379); without it the Redis rows are left out and
 * the run says so.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { drive, type Figures } from './lib/load.ts';
import { CREATE_BODY, openWorkspace } from './matters.ts';
import { removeDir, spawnService, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, table, us } from './lib/table.ts';

const REDIS_URL = process.env.LEGALWORK_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HIGH = '1000000';

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

interface Target {
  name: string;
  child: Child;
  dir: string;
  /** A keyed top-level Matter and the key's headers; a sandbox workspace's Matter. */
  keyed: { path: string; headers: Record<string, string> };
  sandbox: string;
}

async function target(name: string, env: Record<string, string>): Promise<Target> {
  const dir = tempDataDir();
  const child = await spawnService(dir, env);
  const issued = await post(child.url, '/keys', { email: 'bench@legalwork.test' });
  const headers = { authorization: `Bearer ${issued.key}` };
  const topLevel = await post(child.url, '/matters', CREATE_BODY, headers);
  const ws = await openWorkspace(child.url);
  const inGrain = await post(child.url, `${ws}/matters`, CREATE_BODY);
  return { name, child, dir, keyed: { path: `/matters/${topLevel.matter.id}`, headers }, sandbox: `${ws}/matters/${inGrain.matter.id}` };
}

const keyedRead = (t: Target, seconds: number) =>
  drive({ title: `GET /matters/{id} (key), ${t.name}`, url: t.child.url, server: t.child, method: 'GET', path: () => t.keyed.path, headers: t.keyed.headers, duration: seconds });
const sandboxRead = (t: Target, seconds: number) =>
  drive({ title: `GET /workspaces/{ws}/matters/{id}, ${t.name}`, url: t.child.url, server: t.child, method: 'GET', path: () => t.sandbox, duration: seconds });

export async function measureRateLimit(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<{ rows: Figures[]; redis: boolean }> {
  const redis = await redisAnswers(REDIS_URL);
  const prefix = `legalwork:bench:${randomBytes(6).toString('hex')}:`;
  const targets = [
    await target('limits off', { LEGALWORK_RATE_LIMIT: 'off' }),
    await target('limit on, in memory', { LEGALWORK_RATE_LIMIT: HIGH }),
    ...(redis ? [await target('limit on, in Redis', { LEGALWORK_RATE_LIMIT: HIGH, LEGALWORK_REDIS_URL: REDIS_URL, LEGALWORK_REDIS_PREFIX: prefix })] : []),
  ];
  try {
    // Warm every process (JIT, page cache) before anything is measured.
    for (const t of targets) {
      await keyedRead(t, 2);
      await sandboxRead(t, 2);
    }
    const rounds = Number(process.env.BENCH_RATE_LIMIT_ROUNDS ?? 3);
    const rows: Figures[] = [];
    for (const door of [keyedRead, sandboxRead]) {
      const runs = targets.map(() => [] as Figures[]);
      for (let round = 0; round < rounds; round += 1) {
        for (let k = 0; k < targets.length; k += 1) {
          const at = (k + round) % targets.length;
          runs[at].push(await door(targets[at], seconds));
        }
      }
      for (const r of runs) rows.push(median(r));
    }
    return { rows, redis };
  } finally {
    await Promise.all(targets.map((t) => t.child.stop()));
    for (const t of targets) removeDir(t.dir);
  }
}

/** The round with the median CPU per request. */
function median(runs: Figures[]): Figures {
  return [...runs].sort((x, y) => x.cpuUs - y.cpuUs)[Math.floor(runs.length / 2)];
}

export async function bench(): Promise<string[]> {
  const { rows, redis } = await measureRateLimit();
  const refused = (f: Figures) => Object.entries(f.statuses).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${num(n)}×${code}`).join(' ') || '0';
  return [
    `the same door on services that differ only in LEGALWORK_RATE_LIMIT (off, or ${num(Number(HIGH))}/s so nothing is refused), 50 connections, one caller; the median of ${process.env.BENCH_RATE_LIMIT_ROUNDS ?? 3} rounds by CPU/req`,
    ...table(
      ['door, limit', 'req/s (2xx)', 'p50', 'p99', 'CPU/req', 'loop/req', 'not 2xx'],
      rows.map((f) => [f.title, num(f.rps), ms(f.p50), ms(f.p99), us(f.cpuUs), us(f.loopUs), refused(f)]),
    ),
    ...(redis ? [] : [`Redis did not answer at ${REDIS_URL}: the Redis rows were left out`]),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await bench()).join('\n'));
