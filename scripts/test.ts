/**
 * `npm test` and `npm run test:load`, with what they need brought along
 * (scripts/test-services.ts): chromium and Prometheus installed when missing, PostgreSQL
 * and Redis found or started once, their URLs handed to vitest, and what was
 * started is stopped at the end — after a failure, a Ctrl-C or a SIGTERM too.
 *
 *   tsx scripts/test.ts [vitest args ...]        the typecheck, and every test but the load tests, SQLite and PostgreSQL (vitest.config.ts)
 *   tsx scripts/test.ts load [vitest args ...]   the tests that load the service, one file at a time
 *
 * Arguments after the command go to vitest as they are: a file filter, or
 * `--project sqlite` for the embedded journal's project alone.
 *
 * The typecheck (`npm run typecheck`) runs beside the whole suite rather
 * than before it: it is a minute of one core, and the tests spend much of
 * theirs waiting. Its output is printed when it ends; either failing fails
 * the run. A run of part of the suite (any vitest arguments) skips it.
 *
 * The tests' journals live in a directory of the run's own on tmpfs
 * (/dev/shm) where the machine has one, removed at the end. A commit's
 * fsync there costs nothing, and most of what the suite waits on is
 * commits; what the tests check (what a commit makes durable, that a killed
 * process loses nothing it acknowledged) is the code's, not the disk's.
 * `npm run bench` and the soak measure on the real disk.
 */
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, ensureChromium, ensurePostgres, ensurePrometheus, ensureRedis, type TestService } from './test-services.ts';

const args = process.argv.slice(2);
const load = args[0] === 'load';
const vitestArgs = load ? args.slice(1) : args;

const services: TestService[] = [];
/** The children running now (vitest, the typecheck): stopped with the run. */
const running = new Set<ReturnType<typeof spawn>>();
let stopping = false;
let scratch: string | undefined;

async function stopServices(): Promise<void> {
  await Promise.allSettled(services.splice(0).map((s) => s.stop()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}

// Interrupted: the run is stopped, then the services, and the run exits as the signal says (128 + its number).
for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    for (const child of running) child.kill(signal);
    void stopServices().finally(() => process.exit(128 + number));
  });
}

/**
 * The run's scratch directory: on tmpfs where there is one we may write, else
 * under the OS temp dir. Open to every user as /tmp is, since it is the
 * tests' TMPDIR: a throwaway PostgreSQL runs as its own user under it.
 */
function scratchDir(): string {
  const dir = mkdtempSync(join(writable('/dev/shm') ? '/dev/shm' : tmpdir(), 'legalwork-tests-'));
  chmodSync(dir, 0o1777);
  return dir;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** `npm run typecheck`, its output held until it ends so it does not interleave with the tests'. */
function typecheck(): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', ['run', '--silent', 'typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code, signal) => {
      running.delete(child);
      const status = code ?? (signal ? 1 : 0);
      console.log(`\n== typecheck: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${Math.round((Date.now() - started) / 1000)} s ==${output ? `\n${output}` : ''}`);
      resolve(status);
    });
  });
}

function vitest(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname, 'run', ...vitestArgs], { stdio: 'inherit', env: { ...process.env, ...env } });
    running.add(child);
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

let status = 0;
try {
  if (!load) {
    ensureChromium();
    ensurePrometheus();
  }
  const postgres = await ensurePostgres({ url: process.env.LEGALWORK_TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL, explicit: process.env.LEGALWORK_TEST_DATABASE_URL !== undefined });
  services.push(postgres);
  const redis = await ensureRedis({ url: process.env.LEGALWORK_TEST_REDIS_URL ?? DEFAULT_REDIS_URL, explicit: process.env.LEGALWORK_TEST_REDIS_URL !== undefined });
  services.push(redis);
  for (const s of services) console.log(s.said);
  scratch = scratchDir();
  const started = Date.now();
  const name = load ? 'the load tests' : 'the tests';
  console.log(`\n== ${name} (node ${process.version}; journals under ${scratch}) ==`);
  const typechecked = load || vitestArgs.length > 0 ? Promise.resolve(0) : typecheck();
  const tested = await vitest({
    LEGALWORK_TEST_DATABASE_URL: postgres.url,
    LEGALWORK_TEST_REDIS_URL: redis.url,
    TMPDIR: scratch,
    ...(load ? { LEGALWORK_TEST_LOAD: '1' } : {}),
  });
  status = tested || (await typechecked);
  console.log(`== ${name}: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${Math.round((Date.now() - started) / 1000)} s ==`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  status = 1;
} finally {
  await stopServices();
}
process.exit(status);
