/**
 * autocannon, wrapped: one call drives one door with a request generator and
 * returns the figures the benchmarks print. Throughput counts only 2xx answers
 * (a 409 is not work done); latency percentiles cover the 2xx answers only.
 * A run whose work is another status (a 304 to a conditional read) names it
 * (`alsoOk`), and it is counted as a 2xx is.
 */
import autocannon, { type RequestSpec } from 'autocannon';
import type { Child } from './service.ts';

export interface Load {
  title: string;
  /** Base address of the process under test. */
  url: string;
  method: 'GET' | 'POST';
  /** The i-th request's path (and body): lets a run cycle through many Matters. */
  path: (i: number) => string;
  body?: (i: number) => unknown;
  /** Headers every request carries (an API key), or the i-th request's own (an Idempotency-Key). */
  headers?: Record<string, string> | ((i: number) => Record<string, string>);
  connections?: number;
  /** Seconds; the run also ends after `amount` requests, whichever comes first. */
  duration?: number;
  amount?: number;
  /** Sees each answer (status, raw body); used to collect ids as they are minted. */
  onResponse?: (status: number, body: string) => void;
  /** The process under test: its CPU time (all threads, and its event loop's) gives CPU per answer. */
  server?: Pick<Child, 'cpuSeconds' | 'loopCpuSeconds'>;
  /** Statuses besides 2xx that are the work asked for (a 304 to a conditional read): counted as answered, in throughput and latency. */
  alsoOk?: number[];
}

export interface Figures {
  title: string;
  connections: number;
  seconds: number;
  ok: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** CPU time the process under test spent per answer (any status), in microseconds. */
  cpuUs: number;
  /** Of which on its event-loop thread. */
  loopUs: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export async function drive(load: Load): Promise<Figures> {
  let i = 0;
  const request: RequestSpec = {
    method: load.method,
    setupRequest: (req) => {
      const n = i++;
      req.path = load.path(n);
      const headers = typeof load.headers === 'function' ? load.headers(n) : load.headers;
      if (headers) req.headers = headers;
      if (load.body) {
        req.body = JSON.stringify(load.body(n));
        req.headers = { ...headers, ...JSON_HEADERS };
      }
      return req;
    },
    ...(load.onResponse ? { onResponse: (status: number, body: string) => load.onResponse!(status, body) } : {}),
  };
  const connections = load.connections ?? 50;
  const duration = load.duration ?? 10;
  const run = autocannon({
    url: load.url,
    connections,
    // `amount` alone would ignore the duration; the timer below enforces it.
    ...(load.amount !== undefined ? { amount: load.amount } : { duration }),
    timeout: 30,
    // Latency of 2xx answers only, unless other statuses are the work asked for (autocannon counts a 304 as an error).
    excludeErrorStats: load.alsoOk === undefined,
    requests: [request],
  });
  const cpuBefore = load.server?.cpuSeconds() ?? 0;
  const loopBefore = load.server?.loopCpuSeconds() ?? 0;
  // Elapsed time measured here: autocannon's own `duration` is not the run's length when `amount` ends it.
  const started = performance.now();
  // A run that `amount` ends is over at its last answer: autocannon itself only
  // notices on its next one-second tick, which would count idle time as work.
  let lastAnswer = started;
  run.on('response', () => {
    lastAnswer = performance.now();
  });
  const timer = load.amount !== undefined ? setTimeout(() => run.stop(), duration * 1000) : undefined;
  const result = await run;
  const seconds = ((load.amount !== undefined ? lastAnswer : performance.now()) - started) / 1000;
  if (timer) clearTimeout(timer);
  const cpu = (load.server?.cpuSeconds() ?? 0) - cpuBefore;
  const loop = (load.server?.loopCpuSeconds() ?? 0) - loopBefore;
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const counted = (code: string) => code.startsWith('2') || (load.alsoOk?.includes(Number(code)) ?? false);
  const ok = Object.entries(statuses)
    .filter(([code]) => counted(code))
    .reduce((sum, [, count]) => sum + count, 0);
  const alsoOk = Object.entries(statuses).filter(([code]) => !code.startsWith('2') && counted(code)).reduce((sum, [, count]) => sum + count, 0);
  return {
    title: load.title,
    connections,
    seconds,
    ok,
    rps: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    cpuUs: load.server ? (cpu * 1e6) / Math.max(1, result.requests.total) : NaN,
    loopUs: load.server ? (loop * 1e6) / Math.max(1, result.requests.total) : NaN,
    non2xx: result.non2xx - alsoOk,
    errors: result.errors,
    statuses,
  };
}
