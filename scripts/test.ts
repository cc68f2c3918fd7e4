/**
 * `npm test`'s passes, with what they need brought along
 * (scripts/test-services.ts): chromium installed when missing, PostgreSQL
 * and Redis found or started once, their URLs handed to every pass, and what was started is stopped at
 * the end — after a failure, a Ctrl-C or a SIGTERM too.
 *
 *   tsx scripts/test.ts [pass ...]     passes: sqlite, postgres, alone (default: all three, in that order)
 *
 * - sqlite: every test file, the in-process apps on the embedded journal;
 * - postgres: the files where the journal matters, the in-process apps on PostgreSQL;
 * - alone: the tests that load or time the service at scale, one file at a time.
 * (vitest.config.ts says which files each pass takes, and why.)
 */
import { spawn } from 'node:child_process';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, ensureChromium, ensurePostgres, ensureRedis, type TestService } from './test-services.ts';

const PASSES: Record<string, Record<string, string>> = {
  sqlite: {},
  postgres: { LEGALWORK_TEST_JOURNAL: 'postgres' },
  alone: { LEGALWORK_TEST_ALONE: '1' },
};

const asked = process.argv.slice(2);
const unknown = asked.filter((p) => !(p in PASSES));
if (unknown.length) {
  console.error(`unknown pass ${unknown.join(', ')}: the passes are ${Object.keys(PASSES).join(', ')}`);
  process.exit(2);
}
const passes = asked.length ? asked : Object.keys(PASSES);

const services: TestService[] = [];
let running: ReturnType<typeof spawn> | undefined;
let stopping = false;

async function stopServices(): Promise<void> {
  await Promise.allSettled(services.splice(0).map((s) => s.stop()));
}

// Interrupted: the pass is stopped, then the services, and the run exits as the signal says (128 + its number).
for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    running?.kill(signal);
    void stopServices().finally(() => process.exit(128 + number));
  });
}

function vitest(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    running = spawn(process.execPath, [new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname, 'run'], { stdio: 'inherit', env: { ...process.env, ...env } });
    running.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let status = 0;
try {
  ensureChromium();
  const postgres = await ensurePostgres({ url: process.env.LEGALWORK_TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL, explicit: process.env.LEGALWORK_TEST_DATABASE_URL !== undefined });
  services.push(postgres);
  const redis = await ensureRedis({ url: process.env.LEGALWORK_TEST_REDIS_URL ?? DEFAULT_REDIS_URL, explicit: process.env.LEGALWORK_TEST_REDIS_URL !== undefined });
  services.push(redis);
  for (const s of services) console.log(s.said);
  const env = { LEGALWORK_TEST_DATABASE_URL: postgres.url, LEGALWORK_TEST_REDIS_URL: redis.url };
  for (const pass of passes) {
    const started = Date.now();
    console.log(`\n== ${pass} pass (node ${process.version}) ==`);
    status = await vitest({ ...env, ...PASSES[pass] });
    console.log(`== ${pass} pass: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${Math.round((Date.now() - started) / 1000)} s ==`);
    if (status !== 0 || stopping) break;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  status = 1;
} finally {
  await stopServices();
}
process.exit(status);
