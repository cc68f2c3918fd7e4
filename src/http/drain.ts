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
 * Once the app has begun to close (a drain, or any other `close()`):
 * - a request that arrives is refused 503 SERVICE_DRAINING, from the
 *   catalog, with `Retry-After: 1`: its route never runs, so nothing of it is
 *   written, and the journal it would write to may already be closing
 *   (Fastify's own `return503OnClosing` answered a bare body with no code,
 *   fix or request-id);
 * - every answer, those of the requests already running among them, carries
 *   `Connection: close`, so a kept-alive connection ends after it.
 * Callback hooks: every request passes both, and an open app answers them
 * without a promise.
 */
export function installClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('retry-after', '1');
    done(refusal('SERVICE_DRAINING', {}));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** The drain of an app `installClosing` prepared (`createFastify` does): closes idle connections as they go idle, and all of them at the deadline. */
export function installDrain(app: FastifyInstance): Drain {
  return async (deadlineMs) => {
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
