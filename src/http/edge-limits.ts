/**
 * The edge against slow and greedy clients: how long a request may take to
 * arrive, and how many connections one process holds. Both are Node's own
 * mechanisms on the Fastify instance's server; nothing here reads a request.
 *
 * **The request timeout** (`requestTimeoutMs`, `LEGALWORK_REQUEST_TIMEOUT_MS`,
 * default 30 000) is Node's `requestTimeout` and `headersTimeout`, set to the
 * same value (Fastify's `requestTimeout` option and `http.headersTimeout`).
 * Node counts it only while a request is being received: from the moment a
 * connection opens (a client that connects and sends nothing is receiving
 * its first request) or, on a kept-alive connection, from the new request's
 * first byte, until its headers and its whole body have arrived. So:
 * - a request whose headers or body are still arriving when it passes is
 *   answered 408 `REQUEST_TIMEOUT` (the catalog's JSON refusal) and its
 *   connection closed; its route never ran, so nothing of it was written;
 * - a connection that sent nothing at all is closed without an answer (there
 *   is no request to answer; a browser's speculative preconnect could take a
 *   408 for the answer to its next request);
 * - a request that has arrived whole is never cut, however long its answer
 *   takes or streams: an event stream (`GET …/events/stream`) stays open for
 *   as long as its client reads it, and an idle kept-alive connection is
 *   closed by Fastify's `keepAliveTimeout` (72 s) as before.
 * Node looks for overdue requests every `connectionsCheckingInterval` (a tenth
 * of the timeout, at most 1 s, here; Node's default is 30 s), so one is cut
 * between the timeout and the timeout plus that interval. Fastify's
 * `connectionTimeout` (a socket idle timer) is not used: it would also close an
 * event stream quiet for that long, and a socket idle inside a long answer.
 * The 408 is the catalog's refusal, written by `client-errors.ts` with the
 * other requests HTTP itself refuses.
 * A drain (SIGTERM) stops Node's checks (`server.close()` ends them): a
 * request still arriving then is cut by the drain's deadline instead.
 *
 * **The connection cap** (`maxConnections`, `LEGALWORK_MAX_CONNECTIONS`): a
 * connection that arrives while this process holds that many is closed as it
 * arrives, before a byte is read, with a reset (RST): the client's connect or
 * first read fails at once (ECONNRESET), never a connection left waiting. (A
 * plain close is not enough: Node's fetch, seeing the connection end before it
 * has written its request, can wait on it until its own timeout.) Each
 * connection that closes frees its slot; an event stream holds one while it
 * is open. The default is the smaller of 10 000 and half the process's
 * open-file limit (Node raises its soft limit to the hard one at start; read
 * from /proc/self/limits, else `ulimit -n`): the other half is left to the
 * journal, the database pool, webhook deliveries and the rest, so the cap
 * refuses before the process runs out of descriptors and refuses everyone.
 * It is counted here on the server's `connection` event rather than with
 * Node's `server.maxConnections`: under `--processes N` (cluster, round-robin)
 * a worker at `maxConnections` hands the connection back to the primary,
 * which offers it to the next worker, and with every worker full it circles
 * between them, left hanging while the primary spins. Counted here, each
 * process closes what it cannot hold, as a single process does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface EdgeLimits {
  /** Milliseconds a request's headers and body have, together, to arrive. */
  requestTimeoutMs: number;
  /** Connections this process holds open at once; one more is closed as it arrives. */
  maxConnections: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The connection cap's default where the open-file limit allows it. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 3_600_000;
/** How often a refused connection is logged at most. */
const DROP_LOG_MS = 10_000;

/** This process's open-file limit (its soft limit, which Node raised to the hard one at start); undefined where it cannot be read. */
export function openFileLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (match) return match[1] === 'unlimited' ? Infinity : Number(match[1]);
  } catch {
    // Not Linux: ask a shell, which inherits this process's limits.
  }
  try {
    const said = execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (said === 'unlimited') return Infinity;
    const n = Number(said);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The connection cap when none is configured: the smaller of 10 000 and half the open-file limit (10 000 where the limit cannot be read). */
export function defaultMaxConnections(fileLimit: number | undefined): number {
  if (fileLimit === undefined) return DEFAULT_MAX_CONNECTIONS;
  return Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor(fileLimit / 2)));
}

/**
 * `LEGALWORK_REQUEST_TIMEOUT_MS` and `LEGALWORK_MAX_CONNECTIONS`, read and
 * checked; a malformed value (or a cap the open-file limit cannot hold) stops
 * the start with what is wrong and what is accepted.
 */
export function edgeLimitsFromEnv(env: NodeJS.ProcessEnv, fileLimit: number | undefined = openFileLimit()): EdgeLimits {
  const timeout = env.LEGALWORK_REQUEST_TIMEOUT_MS;
  let requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
  if (timeout !== undefined && timeout !== '') {
    requestTimeoutMs = Number(timeout);
    if (!/^\d+$/.test(timeout.trim()) || requestTimeoutMs < MIN_TIMEOUT_MS || requestTimeoutMs > MAX_TIMEOUT_MS) {
      throw new Error(`LEGALWORK_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} (the time a request's headers and body have to arrive; default ${DEFAULT_REQUEST_TIMEOUT_MS}), got ${JSON.stringify(timeout)}`);
    }
  }
  const cap = env.LEGALWORK_MAX_CONNECTIONS;
  let maxConnections = defaultMaxConnections(fileLimit);
  if (cap !== undefined && cap !== '') {
    maxConnections = Number(cap);
    if (!/^\d+$/.test(cap.trim()) || maxConnections < 1) {
      throw new Error(`LEGALWORK_MAX_CONNECTIONS must be a whole number of connections, at least 1 (default ${defaultMaxConnections(fileLimit)} here: the smaller of ${DEFAULT_MAX_CONNECTIONS} and half the open-file limit), got ${JSON.stringify(cap)}`);
    }
    if (fileLimit !== undefined && maxConnections >= fileLimit) {
      throw new Error(`LEGALWORK_MAX_CONNECTIONS is ${maxConnections}, but this process may open only ${fileLimit} files (ulimit -n), and its journal, database pool and webhook deliveries need some of them: it would run out of descriptors, and refuse everyone, before the cap refused anyone. Set it below ${fileLimit} (default here ${defaultMaxConnections(fileLimit)}), or raise the limit`);
    }
  }
  return { requestTimeoutMs, maxConnections };
}

/** How often Node looks for overdue requests: a tenth of the timeout, from 25 ms to 1 s. */
export const checkingIntervalOf = (timeoutMs: number) => Math.min(1000, Math.max(25, Math.round(timeoutMs / 10)));

/** The Fastify options that set the request timeout (spread into `Fastify({...})`); none when there are no limits. */
export function timeoutOptions(limits: EdgeLimits | undefined): { requestTimeout?: number; http?: { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number } } {
  if (!limits) return {};
  const ms = limits.requestTimeoutMs;
  return { requestTimeout: ms, http: { requestTimeout: ms, headersTimeout: ms, connectionsCheckingInterval: checkingIntervalOf(ms) } };
}

/** Applies what the Fastify options cannot: the connection cap (the 408 is written by `client-errors.ts`). */
export function installEdgeLimits(app: FastifyInstance, limits: EdgeLimits | undefined): void {
  if (!limits) return;
  const server = app.server;
  let open = 0;
  let refused = 0;
  let loggedAt = -Infinity;
  server.on('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      // A reset, not a close: a client that sees the close before it has written (Node's fetch) can wait on it until its own timeout.
      socket.resetAndDestroy();
      refused++;
      const now = Date.now();
      if (now - loggedAt >= DROP_LOG_MS) {
        app.log.warn({ maxConnections: limits.maxConnections, refusedSinceLastSaid: refused }, 'the connection cap is reached: new connections are reset as they arrive (LEGALWORK_MAX_CONNECTIONS); said at most every 10 s');
        loggedAt = now;
        refused = 0;
      }
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
}
