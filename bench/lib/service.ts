/**
 * Runs the real service (or the bare Fastify baseline) as a child process on
 * a temp data directory and an ephemeral loopback port, the way an operator
 * would: `node bin/legalwork.js serve`. Used by the benchmarks and by the
 * crash test, which must be able to SIGKILL a real process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Base address, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** `performance.now()` when the process was spawned and when it announced its address. */
  spawnedAt: number;
  listeningAt: number;
  /** Everything the child wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** Resident set size now (VmRSS) and its peak (VmHWM), in bytes. */
  memory(): { rss: number; peak: number };
  /** CPU time the process has used so far (user + system), in seconds. */
  cpuSeconds(): number;
  /** The same, of its main thread alone: the event loop (the journal's writer and V8's helpers run beside it). */
  loopCpuSeconds(): number;
  /** SIGTERM, then wait for the exit (the service drains). */
  stop(): Promise<void>;
  /** SIGKILL: no drain, no flush, no goodbye. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

export function tempDataDir(prefix = 'legalwork-bench-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** `VmRSS` and `VmHWM` of a process, from /proc (Linux). */
export function processMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** utime + stime of a process, or of one of its threads, from /proc (Linux clock ticks of 10 ms). */
export function cpuSecondsOf(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface SpawnOptions {
  /** Arguments after `node`; the address line must match `listening on <url>`. */
  args: string[];
  env?: Record<string, string>;
  /** How long to wait for the address line. */
  timeoutMs?: number;
  /**
   * The open-file limit to start the child with (soft and hard, `ulimit -n`
   * in a shell that then execs node, so the pid is node's): raising the
   * hard limit needs root (CAP_SYS_RESOURCE); where it is refused, the child
   * gets its hard limit. `openFileLimitOf(pid)` says what it got.
   */
  nofile?: number;
  /** Opens an IPC channel to the child (`proc.send`, `proc.on('message')`), for a preloaded probe such as the soak's (`bench/lib/soak-probe.mjs`). */
  ipc?: boolean;
}

/** A process's open-file limit (soft, hard), from /proc (Linux). */
export function openFileLimitOf(pid: number): { soft: number; hard: number } {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  const n = (x: string | undefined) => (x === undefined ? NaN : x === 'unlimited' ? Infinity : Number(x));
  return { soft: n(m?.[1]), hard: n(m?.[2]) };
}

/** The command and arguments that start `node <args>` with an open-file limit of `nofile` (or as high as the hard limit allows). */
export function withOpenFileLimit(nofile: number, args: string[]): [string, string[]] {
  return ['/bin/sh', ['-c', `ulimit -n ${Math.floor(nofile)} 2>/dev/null || ulimit -n "$(ulimit -H -n)"; exec "$0" "$@"`, process.execPath, ...args]];
}

/**
 * The per-caller limits (rate and open streams) are off in every child unless
 * `env` turns them on: the benchmarks drive one caller far past any limit a
 * real agent meets, and the tests that spawn services are about other things
 * (the limits' own tests set LEGALWORK_RATE_LIMIT / LEGALWORK_MAX_STREAMS).
 */
export const LIMITS_OFF = { LEGALWORK_RATE_LIMIT: 'off', LEGALWORK_MAX_STREAMS: 'off' } as const;

/** A node child on loopback, port 0, logs off, per-caller limits off, resolved once it prints `listening on <url>` on stderr (the service, either baseline). */
export async function spawnChild({ args, env = {}, timeoutMs = 30_000, nofile, ipc = false }: SpawnOptions): Promise<Child> {
  const spawnedAt = performance.now();
  const [command, argv] = nofile === undefined ? [process.execPath, args] : withOpenFileLimit(nofile, args);
  const proc = spawn(command, argv, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LEGALWORK_LOG: 'off', ...LIMITS_OFF, ...env },
    stdio: ipc ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "listening on" line within ${timeoutMs} ms:\n${err}`)), timeoutMs);
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (chunk: string) => {
      err += chunk;
      const m = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`child exited (${code}) before listening:\n${err}`));
    });
  });
  const listeningAt = performance.now();
  const pid = proc.pid!;
  const signal = async (sig: NodeJS.Signals) => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    await exited;
  };
  return {
    proc,
    pid,
    url,
    spawnedAt,
    listeningAt,
    stderr: () => err,
    memory: () => processMemory(pid),
    cpuSeconds: () => cpuSecondsOf(pid),
    loopCpuSeconds: () => cpuSecondsOf(pid, pid),
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    exited,
  };
}

/** The legalwork service on the embedded journal in `dataDir`; `nodeArgs` go before the script (e.g. `--cpu-prof`). */
export function spawnService(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = [], options: Pick<SpawnOptions, 'nofile' | 'ipc'> = {}): Promise<Child> {
  return spawnChild({ args: [...nodeArgs, join(ROOT, 'bin/legalwork.js'), 'serve'], env: { LEGALWORK_DATA: dataDir, ...env }, ...options });
}

/** The bare Fastify baseline (`bench/bare-fastify.ts`); with `dataDir`, it also serves its journal-append route. */
export function spawnBare(dataDir?: string): Promise<Child> {
  return spawnChild({ args: ['--import', 'tsx', join(ROOT, 'bench/bare-fastify.ts')], env: dataDir ? { LEGALWORK_DATA: dataDir } : {} });
}
