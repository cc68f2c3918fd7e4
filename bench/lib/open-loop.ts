/**
 * An open-loop load at a constant rate (issue 37, item 4; wrk2's constant-rate
 * mode): request i is due at `start + i / rate` whatever became of the ones
 * before it, and its latency is counted from that intended send time, not
 * from when a connection was free to send it. A closed-loop client
 * (autocannon: each connection sends its next request when the last one is
 * answered) slows down when the server stalls and so never times the requests
 * it did not send meanwhile (coordinated omission, Gil Tene); here a stall
 * shows as the latency of every request that fell due during it.
 *
 * Raw keep-alive HTTP/1.1 sockets, one request in flight on each, a
 * minimal response parser (status line, `content-length` or a chunked body):
 * the client's own cost per request stays small beside the server's, and is
 * printed. A request due while every socket is busy waits in a queue, its
 * clock already running. The sender wakes on a timer at the next due time,
 * so a request may leave up to about a millisecond late (the timer's
 * resolution); that lateness is counted in its latency, alike for every row.
 */
import net from 'node:net';
import { cpuSecondsOf } from './service.ts';
import type { Child } from './service.ts';

export interface OpenLoad {
  title: string;
  /** Base address of the process under test (`http://127.0.0.1:port`). */
  url: string;
  /** The i-th request's path (GET). */
  path: (i: number) => string;
  /** Requests per second, offered whatever the answers. */
  rate: number;
  /** How many requests in all. */
  amount: number;
  /** Sockets opened before the run (each holds one request at a time). */
  connections?: number;
  /** The process under test: its CPU per answer. */
  server?: Pick<Child, 'cpuSeconds' | 'loopCpuSeconds'>;
  /** Gives up on answers this long after the last request fell due (ms). */
  drainMs?: number;
}

export interface OpenFigures {
  title: string;
  rate: number;
  connections: number;
  sent: number;
  /** 2xx answers; latencies below are theirs. */
  ok: number;
  non2xx: number;
  /** Requests never answered: their socket closed, or the run's bound passed first. */
  errors: number;
  /** From the first due time to the last answer. */
  seconds: number;
  /** 2xx answers per second over the run. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  cpuUs: number;
  loopUs: number;
  /** This process's CPU per request (the client's own cost). */
  clientUs: number;
  /** The most requests waiting for a free socket at once. */
  maxQueued: number;
  statuses: Record<string, number>;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n');

interface Conn {
  socket: net.Socket;
  /** The request it carries (index), or -1 when free. */
  busy: number;
  buffer: Buffer;
}

export function runOpenLoop(load: OpenLoad): Promise<OpenFigures> {
  const target = new URL(load.url);
  const connections = load.connections ?? 128;
  const { rate, amount } = load;
  const due = (i: number) => start + (i * 1000) / rate;
  const latencies = new Float64Array(amount);
  let start = 0;
  let next = 0;
  let answered = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let lastAnswer = 0;
  let maxQueued = 0;
  const statuses: Record<string, number> = {};
  const queue: number[] = [];
  const free: Conn[] = [];
  const conns: Conn[] = [];
  const host = `${target.hostname}:${target.port}`;
  let finish: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;

  const send = (c: Conn, i: number) => {
    c.busy = i;
    c.socket.write(`GET ${load.path(i)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  };
  const done = (c: Conn, status: number) => {
    const i = c.busy;
    const at = performance.now();
    lastAnswer = at;
    answered += 1;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) {
      latencies[ok] = at - due(i);
      ok += 1;
    } else non2xx += 1;
    c.busy = -1;
    const waiting = queue.shift();
    if (waiting !== undefined) send(c, waiting);
    else free.push(c);
    if (answered + errors >= amount) finish?.();
  };
  /** Consumes whole responses from the socket's buffer. */
  const parse = (c: Conn) => {
    for (;;) {
      const end = c.buffer.indexOf(HEADER_END);
      if (end < 0) return;
      const head = c.buffer.toString('latin1', 0, end);
      const status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      let total: number;
      if (length) {
        total = end + 4 + Number(length[1]);
        if (c.buffer.length < total) return;
      } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        const last = c.buffer.indexOf(CHUNKED_END, end + 4 - 2);
        if (last < 0) return;
        total = last + CHUNKED_END.length;
      } else total = end + 4;
      c.buffer = c.buffer.subarray(total);
      if (c.busy >= 0) done(c, status);
    }
  };
  const open = () =>
    new Promise<Conn>((resolve, reject) => {
      const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      const c: Conn = { socket, busy: -1, buffer: Buffer.alloc(0) };
      socket.once('connect', () => resolve(c));
      socket.once('error', reject);
      socket.on('data', (chunk: Buffer) => {
        c.buffer = c.buffer.length ? Buffer.concat([c.buffer, chunk]) : chunk;
        parse(c);
      });
      socket.on('close', () => {
        // A socket that closes holding a request loses it: counted as an error, never as an answer.
        if (c.busy >= 0) {
          errors += 1;
          c.busy = -1;
          if (answered + errors >= amount) finish?.();
        }
        const k = free.indexOf(c);
        if (k >= 0) free.splice(k, 1);
      });
    });

  const tick = () => {
    const now = performance.now();
    while (next < amount && due(next) <= now) {
      const c = free.pop();
      if (c) send(c, next);
      else {
        queue.push(next);
        if (queue.length > maxQueued) maxQueued = queue.length;
      }
      next += 1;
    }
    if (next < amount) timer = setTimeout(tick, Math.max(0, due(next) - performance.now()));
  };

  return (async () => {
    for (let i = 0; i < connections; i += 64) conns.push(...(await Promise.all(Array.from({ length: Math.min(64, connections - i) }, open))));
    free.push(...conns);
    const cpu0 = load.server?.cpuSeconds() ?? 0;
    const loop0 = load.server?.loopCpuSeconds() ?? 0;
    const client0 = cpuSecondsOf(process.pid);
    start = performance.now() + 5;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    timer = setTimeout(tick, 5);
    // Bounded: the run's own length, then `drainMs` for the last answers.
    const bound = new Promise<void>((resolve) => setTimeout(resolve, (amount * 1000) / rate + (load.drainMs ?? 30_000)).unref());
    await Promise.race([finished, bound]);
    clearTimeout(timer);
    const cpu = (load.server?.cpuSeconds() ?? 0) - cpu0;
    const loop = (load.server?.loopCpuSeconds() ?? 0) - loop0;
    const client = cpuSecondsOf(process.pid) - client0;
    for (const c of conns) c.socket.destroy();
    const sorted = latencies.subarray(0, ok).sort();
    const q = (p: number) => (ok ? sorted[Math.min(ok - 1, Math.floor(p * ok))] : NaN);
    const seconds = ((lastAnswer || performance.now()) - start) / 1000;
    return {
      title: load.title,
      rate,
      connections,
      sent: next - queue.length,
      ok,
      non2xx,
      errors: amount - answered,
      seconds,
      rps: ok / seconds,
      p50: q(0.5),
      p90: q(0.9),
      p99: q(0.99),
      p999: q(0.999),
      max: ok ? sorted[ok - 1] : NaN,
      cpuUs: load.server ? (cpu * 1e6) / Math.max(1, answered) : NaN,
      loopUs: load.server ? (loop * 1e6) / Math.max(1, answered) : NaN,
      clientUs: (client * 1e6) / Math.max(1, next),
      maxQueued,
      statuses,
    };
  })();
}
