/**
 * What `npm test` needs beside the code: PostgreSQL (the scale-out
 * journal's tests), Redis (the shared rate limit's) and chromium (the
 * browser tests', from Debian's packages when missing). Every machine of this
 * project runs both on their standard ports, and a machine that does is used
 * as it is. Where nothing answers (a laptop, a plain CI runner, a container),
 * the tests bring their own: a throwaway server from Debian's packages
 * (installed as the browser tests' chromium is, when missing), its data under
 * the OS temp dir, on a free port, stopped and removed at the end.
 *
 * A URL given explicitly (LEGALWORK_TEST_DATABASE_URL, LEGALWORK_TEST_REDIS_URL)
 * is what the caller wants tested: if it does not answer the run fails,
 * naming it, rather than quietly testing something else. Nothing is ever
 * skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** A service the tests use: the machine's own, or one started for the run. */
export interface TestService {
  url: string;
  /** What the run did about it, in one line. */
  said: string;
  /** Where a started server keeps its data (removed by `stop`). */
  dataDir?: string;
  /** Stops and removes what was started; nothing for the machine's own. */
  stop(): Promise<void>;
}

interface Wanted {
  /** The URL to use, or to try first. */
  url: string;
  /** Given by the caller: used or failed, never replaced. */
  explicit: boolean;
}

const SCRIPT = new URL('./ensure-debian-package.sh', import.meta.url).pathname;
const STARTUP_MS = 60_000;

export async function ensurePostgres(wanted: Wanted): Promise<TestService> {
  const refusal = await postgresRefusal(wanted.url);
  if (!refusal) return machines('PostgreSQL', wanted.url);
  if (wanted.explicit) throw new Error(`PostgreSQL does not answer at ${wanted.url} (LEGALWORK_TEST_DATABASE_URL): ${refusal}`);
  return startPostgres(`nothing answers at ${wanted.url} (${refusal})`);
}

export async function ensureRedis(wanted: Wanted): Promise<TestService> {
  const { hostname, port } = new URL(wanted.url);
  const refusal = await redisRefusal(hostname, Number(port || 6379));
  if (!refusal) return machines('Redis', wanted.url);
  if (wanted.explicit) throw new Error(`Redis does not answer at ${wanted.url} (LEGALWORK_TEST_REDIS_URL): ${refusal}`);
  return startRedis(`nothing answers at ${wanted.url} (${refusal})`);
}

const machines = (name: string, url: string): TestService => ({ url, said: `${name}: the machine's own, at ${url}`, stop: async () => undefined });

/** Why PostgreSQL at `url` cannot be used, or null when it answers a query. */
async function postgresRefusal(url: string): Promise<string | null> {
  const db = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  db.on('error', () => undefined);
  try {
    await db.connect();
    await db.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** Why Redis at host:port cannot be used, or null when it answers PING. */
function redisRefusal(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    let heard = '';
    const done = (why: string | null) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(3000, () => done('no answer within 3 s'));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (bytes) => {
      heard += bytes.toString();
      if (heard.includes('\r\n')) done(heard.startsWith('+PONG') ? null : `answered ${JSON.stringify(heard.trim())}`);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/** A port nothing listens on now (the server binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The browser tests drive Debian's chromium: installed when it is missing. */
export function ensureChromium(): void {
  ensurePackage('/usr/bin/chromium', 'chromium', 'the browser tests');
}

/** The metrics test runs Debian's Prometheus against the service: installed when it is missing (never started as a service). */
export function ensurePrometheus(): void {
  ensurePackage('/usr/bin/prometheus', 'prometheus', 'the metrics test, which scrapes the service with it');
}

/** Installs the Debian package holding `file` when it is missing (root or sudo). */
function ensurePackage(file: string, pkg: string, why: string): void {
  const run = spawnSync('bash', [SCRIPT, file, pkg, why], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`could not install Debian's ${pkg} (${why}): install it, then npm test`);
}

/** The newest PostgreSQL server binaries Debian installed (/usr/lib/postgresql/<major>/bin). */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres')) && existsSync(join(root, v, 'bin', 'initdb')));
  majors.sort((a, b) => Number(b) - Number(a));
  return majors.length ? join(root, majors[0], 'bin') : null;
}

/** PostgreSQL refuses to run as root: as root, its server runs as the `postgres` user Debian's package makes. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, PostgreSQL needs an unprivileged user to run as, and there is no `postgres` user (Debian\'s postgresql package makes one)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function startPostgres(why: string): Promise<TestService> {
  if (!postgresBin()) ensurePackage('/usr/lib/postgresql/*/bin/initdb', 'postgresql', 'a throwaway PostgreSQL for the tests');
  const bin = postgresBin();
  if (!bin) throw new Error('Debian\'s postgresql is installed but no /usr/lib/postgresql/<major>/bin/initdb was found');
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'legalwork-test-postgres-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const asServer = user ? { uid: user.uid, gid: user.gid } : {};
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...asServer, encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.error}`);
  }
  const port = await freePort();
  // Durability of this server is not under test (the service's is, over it): no fsync keeps the run fast.
  const server = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'max_connections=200', '-c', 'fsync=off', '-c', 'full_page_writes=off'], { ...asServer, stdio: ['ignore', 'ignore', 'pipe'] });
  const log = collect(server);
  const stop = () => stopChild(server, 'SIGINT').finally(() => rmSync(dir, { recursive: true, force: true }));
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await until(async () => (await postgresRefusal(admin)) === null, server, log, 'PostgreSQL');
    const db = new pg.Client({ connectionString: admin });
    await db.connect();
    await db.query('CREATE DATABASE test');
    await db.end();
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/test`, dataDir: dir, said: `PostgreSQL: started a throwaway server at 127.0.0.1:${port} (${bin}, data in ${dir}), as ${why}`, stop };
}

async function startRedis(why: string): Promise<TestService> {
  const binary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync) ?? (ensurePackage('/usr/bin/redis-server', 'redis-server', 'a throwaway Redis for the tests'), '/usr/bin/redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'legalwork-test-redis-'));
  const port = await freePort();
  const server = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const log = collect(server);
  const stop = () => stopChild(server, 'SIGTERM').finally(() => rmSync(dir, { recursive: true, force: true }));
  try {
    await until(async () => (await redisRefusal('127.0.0.1', port)) === null, server, log, 'Redis');
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, dataDir: dir, said: `Redis: started a throwaway server at 127.0.0.1:${port} (${binary}), as ${why}`, stop };
}

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (b) => (text = (text + b.toString()).slice(-4000)));
  return () => text;
}

/** Waits until `ready`, failing at once if the server exits first. */
async function until(ready: () => Promise<boolean>, child: ChildProcess, log: () => string, name: string): Promise<void> {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before it answered: ${log()}`);
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not answer within ${STARTUP_MS / 1000} s: ${log()}`);
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill(signal);
  });
}
