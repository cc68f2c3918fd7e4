/**
 * A graceful stop that ends, whatever the clients do. Draining answers every
 * request in flight and then:
 * - closes each keep-alive connection as it goes idle (its next answer, if
 *   one is in flight, carries `Connection: close`), where a plain
 *   `server.close()` closes only the ones idle at that instant and waits on
 *   the rest for their keep-alive timeout;
 * - at the deadline, closes whatever is still open (a client that never
 *   finishes its request), so the process exits within it.
 * What a request committed is durable before its answer is written, so a
 * connection closed at the deadline loses an answer, never a write.
 */
import type { FastifyInstance } from 'fastify';
import { refusal } from '../domain/refusals.ts';

export const DEFAULT_DRAIN_SECONDS = 10;
/** How often idle connections are swept while draining. */
const SWEEP_MS = 25;

export type Drain = (deadlineMs: number) => Promise<{ forced: boolean }>;

/**
 * A request that arrives once the app has begun to close (a drain, or any
 * other `close()`) is refused 503 SERVICE_DRAINING, from the catalog, with
 * `Retry-After: 1`: its route never runs, so nothing of it is written, and
 * the journal it would write to may already be closing. (Fastify's own
 * `return503OnClosing` answered a bare body with no code, fix or request-id.)
 * The requests already running finish and are answered as usual.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A callback hook: every request passes it, and an open app answers it without a promise.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('retry-after', '1').header('connection', 'close');
    done(refusal('SERVICE_DRAINING', {}));
  });
}

/** Installs the hook that closes connections after their answer while draining; returns the drain itself. */
export function installDrain(app: FastifyInstance): Drain {
  let draining = false;
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });
  return async (deadlineMs) => {
    draining = true;
    const server = app.server;
    let forced = false;
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    const deadline = setTimeout(() => {
      forced = true;
      server.closeAllConnections();
    }, deadlineMs);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
      clearTimeout(deadline);
    }
    return { forced };
  };
}

/** `LEGALWORK_DRAIN_SECONDS`: how long a stop may take before open connections are cut. */
export function drainSecondsOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_DRAIN_SECONDS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new Error(`LEGALWORK_DRAIN_SECONDS must be a positive number of seconds (at most 3600), got ${JSON.stringify(value)}`);
  return seconds;
}
