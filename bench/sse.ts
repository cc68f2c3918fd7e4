/**
 * SSE fan-out: one event fanned out to 1,000, 10,000 and 50,000 subscribers
 * of `GET /events/stream` on loopback, against a bare Node SSE server doing
 * the least possible (hold the sockets, write one frame, encoded once as a
 * chunk, straight to each socket, as the service's hub does).
 *
 * 50,000 connections to one server need more than one machine's defaults
 * allow (issue 37, item 5), and the benchmark raises what it must and says
 * so: the subscribers' connections are spread over loopback source
 * addresses (127.0.0.2, .3, …: one address has about 28,000 ephemeral ports
 * toward one server, `ip_local_port_range`; at most 20,000 connections an
 * address, fresh addresses for each run, so the last run's sockets in
 * TIME_WAIT are never in the way); the service, the bare server and the
 * subscriber process are started with an open-file limit above the largest
 * count (`ulimit -n` in the shell that execs them; the hard limit can be
 * raised only by root); the service with `LEGALWORK_MAX_CONNECTIONS` above
 * it and the per-caller stream cap off (`LEGALWORK_MAX_STREAMS=off`, as every
 * spawned service).
 *
 * Where a count needs more descriptors than one process may hold (the hard
 * limit here is 20,000, and raising it needs CAP_SYS_RESOURCE), it is served
 * as an operator would serve it: `legalwork serve --processes N` on a
 * PostgreSQL journal, N processes behind the one address (each holding its
 * share, up to its own limit; a commit in one reaches the others' streams by
 * the journal's notifications), and the subscribers are as many processes as
 * their sockets need. The bare server is one process and is not measured
 * past its limit. Memory per connection is then the growth of every
 * process of the service (the primary and its workers) together.
 *
 * Three kinds of process, so no one's event loop flatters another's figures:
 * - the service (`legalwork serve` on a temp journal, or its cluster) or the bare server;
 * - the subscribers: child processes holding the sockets and parsing frames;
 * - this one, which commits the event (`POST .../deadlines/{asset}/tick`, one
 *   journal event per tick) and reads the clocks.
 *
 * "commit → last delivery" is measured from the moment the write request is
 * sent to the moment the last subscriber has the frame, so it also contains
 * the write's own commit (fsync included): an upper bound. Times from two
 * processes are compared on the machine's monotonic clock (`process.hrtime`,
 * CLOCK_MONOTONIC on Linux, one clock for every process). Not on
 * `performance.timeOrigin + performance.now()`: each process reads its
 * origin from the wall clock when it starts, so once the wall clock is
 * stepped two processes disagree (seen: by 9 s, in one full bench run).
 * Memory per held connection is the server's resident-set growth while the
 * subscribers connect, divided by their number.
 *
 * Runs inside `npm run bench` (`bench()`), or alone: `node --import tsx bench/sse.ts`.
 * BENCH_SSE_SUBSCRIBERS (default "1000,10000,50000") and BENCH_SSE_ROUNDS (default 5) tune it;
 * BENCH_SSE_PER_PROCESS (default: what the open-file limit allows) takes the cluster's path at smaller counts.
 *
 * Targets (issue 37): one event to 50,000 subscribers, the last frame
 * <= 250 ms after the write, <= 8 KiB of server memory per held connection.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFileLimitOf, processMemory, removeDir, ROOT, spawnChild, spawnService, tempDataDir, withOpenFileLimit, type Child } from './lib/service.ts';
import { ms, num, table, verdict } from './lib/table.ts';
import { quantile } from './lib/stats.ts';
import { SSE_EVENT_NAME } from '../src/domain/sse-wire.ts';

/** Issue 37's targets, at 50,000 subscribers. */
const TARGET_SUBSCRIBERS = 50_000;
const TARGET_MS = 250;
const TARGET_BYTES_PER_CONNECTION = 8 * 1024;
/** Descriptors a process holding the connections needs besides them (journal, pipes, libraries), and the service's cap's margin. */
const DESCRIPTOR_RESERVE = 1_000;
/** Connections per loopback source address (about 28,000 ephemeral ports each here). */
const PER_ADDRESS = 20_000;
const ROLE = process.env.LEGALWORK_BENCH_SSE_ROLE;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

// ---------------------------------------------------------------------------
// Role: the subscribers (a child process). Protocol on stdin/stdout, one JSON
// line per message: stdin `expect <seq>` arms a measurement, `quit` ends.

async function subscribers(url: string, count: number, addresses: string[]): Promise<void> {
  const out = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);
  const sockets: net.Socket[] = [];
  let expected = -1;
  let needle = Buffer.alloc(0);
  let arrivals: number[] = [];
  let seen = new WeakSet<net.Socket>();
  let opened = 0;
  let failed = 0;
  let dropped = 0;
  const errors = new Map<string, number>();
  const report = () => {
    // Every arrival, so the figures of several subscriber processes are taken over all their sockets.
    out({ seq: expected, received: arrivals.length, times: arrivals.map((t) => Math.round(t * 1000) / 1000) });
    expected = -1;
  };
  // Raw sockets: no HTTP parser or stream per chunk on this side, and no string decoding (frames are
  // searched as bytes), so the subscriber process costs as little as it can and the server is what is timed.
  const target = new URL(url);
  const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\n\r\n`);
  const OK = Buffer.from('HTTP/1.1 200');
  let made = 0;
  const connect = () =>
    new Promise<void>((resolve) => {
      // Spread over the loopback source addresses: one address has about 28,000 ephemeral ports toward one server.
      const localAddress = addresses[made++ % addresses.length];
      const socket = net.connect({ host: target.hostname, port: Number(target.port), localAddress, noDelay: true });
      let carry: Buffer | null = null;
      let counted = false;
      socket.on('connect', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => {
        if (!counted) {
          if (chunk.compare(OK, 0, OK.length, 0, OK.length) !== 0) {
            failed += 1;
            socket.destroy();
            resolve();
            return;
          }
          counted = true;
          opened += 1;
          resolve();
        }
        if (expected < 0) return;
        // A frame may straddle two reads: keep the tail of the previous one.
        const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
        carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 32)));
        // Counted once per socket per expected seq (the carry may show a needle twice).
        if (!seen.has(socket) && bytes.indexOf(needle) >= 0) {
          seen.add(socket);
          arrivals.push(now());
          // Every socket held, not every one asked for: one that could not connect never receives.
          if (arrivals.length === opened) report();
        }
      });
      socket.on('close', () => {
        if (counted) dropped += 1;
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        errors.set(error.code ?? error.message, (errors.get(error.code ?? error.message) ?? 0) + 1);
        if (!counted) {
          failed += 1;
          resolve();
        }
      });
      sockets.push(socket);
    });
  const started = now();
  // Waves, so the listen backlog is never what is being measured.
  for (let i = 0; i < count; i += 500) await Promise.all(Array.from({ length: Math.min(500, count - i) }, connect));
  out({ ready: opened, failed, seconds: (now() - started) / 1000, errors: Object.fromEntries(errors), nofile: openFileLimitOf(process.pid) });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'expect') {
      expected = Number(arg);
      needle = Buffer.from(`\nid: ${expected}\n`);
      arrivals = [];
      seen = new WeakSet();
      out({ armed: expected });
      setTimeout(() => {
        if (expected === Number(arg)) out({ seq: expected, received: arrivals.length, timeout: true, dropped });
      }, 15_000).unref();
    } else if (cmd === 'quit') {
      for (const socket of sockets) socket.destroy();
      break;
    }
  }
  process.exit(0);
}

// ---------------------------------------------------------------------------
// Role: the bare baseline (a child process). GET /stream holds the socket;
// POST /publish writes one frame to every held socket, then answers 204.

function bareServer(): void {
  const held = new Set<http.ServerResponse>();
  let seq = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': open\n\n');
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    if (req.method === 'POST' && req.url === '/publish') {
      seq += 1;
      const frame = Buffer.from(`event: ${SSE_EVENT_NAME}\nid: ${seq}\ndata: ${JSON.stringify({ seq, kind: 'ladder.ticked', at: new Date().toISOString() })}\n\n`);
      // Encoded once as a chunk of the chunked body, written straight to each socket (as the hub does).
      const chunk = Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n')]);
      for (const r of held) r.socket?.write(chunk);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ seq }));
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stderr.write(`bare-sse listening on http://127.0.0.1:${port}\n`);
  });
  process.once('SIGTERM', () => process.exit(0));
}

// ---------------------------------------------------------------------------
// The benchmark.

interface Proc {
  proc: ChildProcess;
  lines: AsyncIterator<string>;
}

/** This file, run as a child in another role. */
const SELF = ['--import', 'tsx', join(ROOT, 'bench/sse.ts')];

function child(env: Record<string, string>, nofile: number): ChildProcess {
  const [command, args] = withOpenFileLimit(nofile, SELF);
  return spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
}

async function nextJson(p: Proc, what: string): Promise<Record<string, unknown>> {
  const { value, done } = await p.lines.next();
  if (done) throw new Error(`the subscriber process ended while waiting for ${what}`);
  return JSON.parse(value as string) as Record<string, unknown>;
}

interface Target {
  name: string;
  /** The processes that hold the connections (a cluster's primary and its workers), whose memory is counted. */
  pids: () => number[];
  streamUrl: () => Promise<string>;
  /** Commits one event; resolves with its seq once the write was answered. */
  publish: () => Promise<number>;
  /** The seq the next publish will carry. */
  nextSeq: () => Promise<number>;
}

interface Row {
  target: string;
  subscribers: number;
  connected: number;
  failed: number;
  /** The loopback source addresses the connections were spread over. */
  addresses: string[];
  /** How many subscriber processes held them. */
  subscriberProcesses: number;
  connectSeconds: number;
  /** Why connections failed (error codes and counts), if any did. */
  errors: Record<string, number>;
  /** The subscriber processes' resident sets once every connection was held, and their open-file limit. */
  subscriberRss: number;
  subscriberLimit: { soft: number; hard: number };
  toLast: number[];
  toMedian: number[];
  reply: number[];
  bytesPerConnection: number;
}

const median = (xs: number[]) => quantile(xs, 0.5);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const rssOf = (pids: number[]) => sum(pids.map((pid) => processMemory(pid).rss));

/** The children of `pid` (a cluster primary's workers), from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent's pid is the second field after the parenthesised command name.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  return children;
}

/** One subscriber process: `count` connections over `addresses`. */
function subscriberProcess(url: string, count: number, addresses: string[], nofile: number) {
  const proc = child({ LEGALWORK_BENCH_SSE_ROLE: 'subscribers', SSE_URL: url, SSE_COUNT: String(count), SSE_ADDRESSES: addresses.join(',') }, nofile);
  const p: Proc = { proc, lines: createInterface({ input: proc.stdout! })[Symbol.asyncIterator]() };
  let err = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (c: string) => (err += c));
  return { proc, p, stderr: () => err };
}

/**
 * Holds `count` connections to `target` (as many subscriber processes as
 * `perProcess` allows, each over source addresses of its own), then commits
 * one event `rounds` times (after one warm-up) and times each to its last
 * subscriber.
 */
async function fanOut(target: Target, count: number, rounds: number, addressesFor: (count: number) => string[], nofile: number, perProcess: number): Promise<Row> {
  const url = await target.streamUrl();
  const parts = Math.ceil(count / perProcess);
  const shares = Array.from({ length: parts }, (_, i) => Math.floor(count / parts) + (i < count % parts ? 1 : 0));
  const before = rssOf(target.pids());
  const subs = shares.map((share) => ({ share, addresses: addressesFor(share) })).map(({ share, addresses }) => ({ addresses, ...subscriberProcess(url, share, addresses, nofile) }));
  const all = <T>(f: (s: (typeof subs)[number]) => Promise<T>) => Promise.all(subs.map(f));
  try {
    const ready = await all((s) => nextJson(s.p, 'the subscribers to connect'));
    await sleep(1000);
    const after = rssOf(target.pids());
    const connected = sum(ready.map((r) => Number(r.ready)));
    const errors: Record<string, number> = {};
    for (const r of ready) for (const [code, n] of Object.entries((r.errors ?? {}) as Record<string, number>)) errors[code] = (errors[code] ?? 0) + n;
    const row: Row = {
      target: target.name,
      subscribers: count,
      connected,
      failed: sum(ready.map((r) => Number(r.failed))),
      addresses: subs.flatMap((s) => s.addresses),
      subscriberProcesses: subs.length,
      connectSeconds: Math.max(...ready.map((r) => Number(r.seconds))),
      errors,
      subscriberRss: rssOf(subs.map((s) => s.proc.pid!)),
      subscriberLimit: ready[0].nofile as { soft: number; hard: number },
      toLast: [],
      toMedian: [],
      reply: [],
      bytesPerConnection: (after - before) / Math.max(1, connected),
    };
    if (row.connected === 0) return row;
    // One warm-up event (not counted): the first fan-out also pays for compiling its path.
    for (let round = -1; round < rounds; round++) {
      const seq = await target.nextSeq();
      for (const s of subs) s.proc.stdin!.write(`expect ${seq}\n`);
      await all((s) => nextJson(s.p, 'the subscribers to arm'));
      const t0 = now();
      const published = await target.publish();
      const replied = now();
      if (published !== seq) throw new Error(`${target.name}: expected the event to be seq ${seq}, it was ${published}`);
      const results = await all((s) => nextJson(s.p, `seq ${seq} to reach every subscriber`));
      const late = results.find((r) => r.timeout);
      if (late) throw new Error(`${target.name}: only ${sum(results.map((r) => Number(r.received)))} of ${row.connected} subscribers received seq ${seq} within 15 s (by subscriber process: ${results.map((r) => `${r.received}${r.timeout ? ` late, ${r.dropped} dropped` : ''}`).join(', ')} of ${shares.join(', ')})`);
      if (round < 0) continue;
      const times = results.flatMap((r) => r.times as number[]).sort((a, b) => a - b);
      row.toLast.push(times[times.length - 1] - t0);
      row.toMedian.push(median(times) - t0);
      row.reply.push(replied - t0);
    }
    return row;
  } catch (error) {
    const err = subs.map((s) => s.stderr()).join('');
    throw new Error(`${error instanceof Error ? error.message : String(error)}${err ? `\nsubscriber stderr: ${err}` : ''}`);
  } finally {
    for (const s of subs) s.proc.stdin!.write('quit\n');
    await Promise.all(subs.map((s) => new Promise((r) => (s.proc.exitCode !== null ? r(null) : s.proc.once('exit', r)))));
    // Let the server notice the closed sockets before the next run measures memory.
    await sleep(500);
  }
}

async function json(url: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** The service's target: one workspace, one Matter, whose Asset's ladder ticks one day per event. */
async function serviceTarget(name: string, service: Child, pids: () => number[]): Promise<Target> {
  const ws = (await json(`${service.url}/workspaces`, 'POST')).workspace.id as string;
  const prefix = `${service.url}/workspaces/${ws}`;
  const matter = await json(`${prefix}/matters`, 'POST', { matterType: 'patent_maintenance' });
  const ladder = `${prefix}/deadlines/${matter.matter.assetId}`;
  const latest = async () => (await json(`${prefix}/events?after=999999999`)).latestSeq as number;
  return {
    name,
    pids,
    streamUrl: async () => `${prefix}/events/stream?after=${await latest()}`,
    nextSeq: async () => (await latest()) + 1,
    publish: async () => (await json(`${ladder}/tick`, 'POST', { days: 1 })).seq as number,
  };
}

/** The database the service's cluster journals to (a schema of its own, dropped after). */
const DATABASE_URL = process.env.LEGALWORK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function bench(): Promise<string[]> {
  const asked = (process.env.BENCH_SSE_SUBSCRIBERS ?? '1000,10000,50000').split(',').map((s) => Number(s.trim()));
  const rounds = Number(process.env.BENCH_SSE_ROUNDS ?? 5);
  // A child is given at most this process's hard open-file limit (raising it needs root with CAP_SYS_RESOURCE):
  // a count that needs more is served by several processes, and the lines below say so.
  const hard = openFileLimitOf(process.pid).hard;
  // BENCH_SSE_PER_PROCESS lowers it, to try the cluster's path at small counts.
  const fits = Math.min(Math.floor(hard - DESCRIPTOR_RESERVE), Number(process.env.BENCH_SSE_PER_PROCESS ?? Infinity));
  const counts = [...new Set(asked)];
  const single = counts.filter((c) => c <= fits);
  const clustered = counts.filter((c) => c > fits);
  // Every process holding the connections needs a descriptor for each, and some for the rest (journal, pipes, libraries).
  const nofile = Math.min(hard, Math.max(20_000, Math.max(...single, 0) + DESCRIPTOR_RESERVE));
  // Room for every subscriber of a process and this process's own requests, within its descriptors.
  const maxConnections = Math.min(hard - DESCRIPTOR_RESERVE / 2, Math.max(...counts) + 100);
  const rows: Row[] = [];
  const lines: string[] = [];
  // Fresh source addresses for each run (127.0.0.2 onward): a run's closed connections linger in TIME_WAIT on their ports.
  let nextAddress = 2;
  const addressesFor = (count: number) => Array.from({ length: Math.max(1, Math.ceil(count / PER_ADDRESS)) }, () => `127.0.0.${nextAddress++}`);
  const limit = (l: { soft: number; hard: number } | undefined) => (l ? `${num(l.soft)} (hard ${num(l.hard)})` : 'unknown');

  if (single.length) {
    const dir = tempDataDir('legalwork-bench-sse-');
    // The service caps open connections at the smaller of 10,000 and half its open-file limit by default (`edge-limits.ts`): room for every subscriber and this process's own.
    const service = await spawnService(dir, { LEGALWORK_MAX_CONNECTIONS: String(maxConnections) }, [], { nofile });
    const bare = await spawnChild({ args: SELF, env: { LEGALWORK_BENCH_SSE_ROLE: 'bare-server' }, nofile });
    lines.push(`raised for this benchmark: the open-file limit to ${num(nofile)} in the service (got ${limit(openFileLimitOf(service.pid))}), the bare server (got ${limit(openFileLimitOf(bare.pid))}) and each subscriber process; this process's own: ${limit(openFileLimitOf(process.pid))}`);
    try {
      const target = await serviceTarget('legalwork', service, () => [service.pid]);
      let bareSeq = 0;
      const bareTarget: Target = {
        name: 'bare node',
        pids: () => [bare.pid],
        streamUrl: async () => `${bare.url}/stream`,
        nextSeq: async () => bareSeq + 1,
        publish: async () => (bareSeq = (await json(`${bare.url}/publish`, 'POST')).seq as number),
      };
      for (const count of single) {
        rows.push(await fanOut(target, count, rounds, addressesFor, nofile, fits));
        rows.push(await fanOut(bareTarget, count, rounds, addressesFor, nofile, fits));
      }
    } finally {
      await bare.stop();
      await service.stop();
      removeDir(dir);
    }
  }

  for (const count of clustered) {
    // Each process holds at most three quarters of what it may: the primary hands connections out as workers are free, not in strict turn.
    const processes = Math.ceil(count / (fits * 0.75));
    const schema = `lw_bench_sse_${randomBytes(4).toString('hex')}`;
    const dir = tempDataDir('legalwork-bench-sse-');
    const env = { LEGALWORK_DATABASE_URL: DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema, LEGALWORK_MAX_CONNECTIONS: String(maxConnections) };
    const service = await spawnChild({ args: [join(ROOT, 'bin/legalwork.js'), 'serve', '--processes', String(processes)], env: { LEGALWORK_DATA: dir, ...env }, nofile: hard, timeoutMs: 60_000 });
    lines.push(`${num(count)} subscribers need more descriptors than one process may hold here (hard open-file limit ${num(hard)}; raising it needs root with CAP_SYS_RESOURCE): served by \`legalwork serve --processes ${processes}\` on PostgreSQL (a schema of its own), each process's open-file limit ${limit(openFileLimitOf(service.pid))} and LEGALWORK_MAX_CONNECTIONS=${num(maxConnections)}; the bare server, one process, is not measured at this count`);
    try {
      const target = await serviceTarget(`legalwork, ${processes} processes (PostgreSQL)`, service, () => [service.pid, ...childrenOf(service.pid)]);
      rows.push(await fanOut(target, count, rounds, addressesFor, hard, fits));
    } finally {
      await service.stop();
      removeDir(dir);
      const db = new pg.Client({ connectionString: DATABASE_URL });
      await db.connect();
      await db.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
      await db.end();
    }
  }

  lines.push(
    `LEGALWORK_MAX_CONNECTIONS=${num(maxConnections)} a process (default: the smaller of 10,000 and half the open-file limit), LEGALWORK_MAX_STREAMS=off; the subscribers' connections spread over loopback source addresses, at most ${num(PER_ADDRESS)} each (ip_local_port_range ${portRange()}), and over subscriber processes of at most ${num(fits)} connections each`,
    '',
    ...table(
      ['server', 'subscribers', 'connected', 'source addresses', 'subscriber processes', 'connect', 'commit→last (median)', 'commit→last (worst)', 'commit→median sub', 'write answered', 'server memory/conn', 'subscriber RSS'],
      rows.map((r) => [r.target, num(r.subscribers), `${num(r.connected)}${r.failed ? ` (${num(r.failed)} failed)` : ''}`, `${r.addresses[0]}${r.addresses.length > 1 ? `–.${r.addresses[r.addresses.length - 1].split('.')[3]}` : ''}`, num(r.subscriberProcesses), `${r.connectSeconds.toFixed(1)} s`, ms(median(r.toLast)), ms(Math.max(...r.toLast)), ms(median(r.toMedian)), ms(median(r.reply)), `${num(r.bytesPerConnection / 1024, 1)} KiB`, `${num(r.subscriberRss / 1024 / 1024)} MiB`]),
    ),
  );
  lines.push('', `${rounds} events per row; each is one journal event (a ladder tick) committed durably, then fanned out; times include the write's own commit (an upper bound), and the subscriber processes' own reading of every socket.`);
  for (const r of rows) {
    if (r.failed) lines.push(`${r.target}, ${num(r.subscribers)}: ${num(r.failed)} subscribers could not connect (${JSON.stringify(r.errors)})`);
  }
  for (const r of rows.filter((x) => x.target.startsWith('legalwork'))) {
    const last = median(r.toLast);
    const perConnection = r.bytesPerConnection;
    if (r.subscribers === TARGET_SUBSCRIBERS) {
      lines.push(`target one event to ${num(TARGET_SUBSCRIBERS)} subscribers, last frame <= ${TARGET_MS} ms after the write (${r.target}): ${ms(last)} (worst ${ms(Math.max(...r.toLast))}), every one of ${num(r.connected)} held connections reached -> ${verdict(last <= TARGET_MS && r.connected === r.subscribers)}`);
      lines.push(`target <= ${TARGET_BYTES_PER_CONNECTION / 1024} KiB of server memory per held connection (${r.target}, all its processes): ${num(perConnection / 1024, 1)} KiB -> ${verdict(perConnection <= TARGET_BYTES_PER_CONNECTION && r.connected === r.subscribers)}`);
    } else lines.push(`${r.target}, ${num(r.subscribers)} subscribers: last delivery ${ms(last)} after the write; ${num(perConnection / 1024, 1)} KiB per held connection`);
  }
  return lines;
}

function portRange(): string {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().replace(/\s+/, '–');
  } catch {
    return 'unknown';
  }
}

const main = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (ROLE === 'subscribers') await subscribers(process.env.SSE_URL!, Number(process.env.SSE_COUNT), (process.env.SSE_ADDRESSES ?? '127.0.0.1').split(','));
else if (ROLE === 'bare-server') bareServer();
else if (main) for (const line of await bench()) console.log(line);
