/**
 * The event tail doors. `GET /events` pages a grain's tail; `GET /events/stream`
 * streams it as Server-Sent Events when asked with `Accept: text/event-stream`
 * and otherwise answers at once with the subscription contract (never a hung
 * request). Mounted on every grain prefix: each grain has its own tail.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { refusal } from '../../domain/refusals.ts';
import { readTailPage, tailEnvelope } from '../../engine/tail.ts';
import { FEEDS } from '../../journal/store.ts';
import { empty, ok } from '../envelopes.ts';
import { NO_GRAIN } from '../../engine/grains.ts';
import { KEYLESS_LISTING, resolveGrain } from '../grain.ts';
import { callerOf } from '../rate-limit.ts';
import { keptPagesOf } from '../kept-pages.ts';
import { tailEntriesOf } from '../tail-entries.ts';
import { EventsQuery, EventStreamQuery, LAST_EVENT_ID } from '../../schemas/events.ts';
import { EventDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';
import type { SseHub } from '../sse.ts';
import { KEEP_ALIVE_COMMENT, SSE_EVENT_NAME } from '../../domain/sse-wire.ts';

const wantsEventStream = (accept: string | undefined) => accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);

/** The resume point: `Last-Event-ID` (what a reconnecting EventSource sends) wins over `after`. */
function cursorOf(lastEventId: string | string[] | undefined, after: number): number {
  if (lastEventId === undefined) return after;
  const value = Array.isArray(lastEventId) ? lastEventId[lastEventId.length - 1] : lastEventId;
  if (!LAST_EVENT_ID.test(value.trim())) {
    throw refusal('INVALID_LAST_EVENT_ID', { value }, { header: 'last-event-id' });
  }
  return Number(value.trim());
}

export async function eventRoutes(fastify: FastifyInstance, { services, sse }: { services: Services; sse: SseHub }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', resolveGrain(services));
  // Pages kept by their grain's seq (`kept-pages.ts`), shared with the Matter doors' lists.
  const pages = keptPagesOf(services.journal);
  pages.install(app);
  // Each event's entry kept as it is appended (`tail-entries.ts`): a page of the timeline is one range read, sent nearly as stored.
  const entries = tailEntriesOf(services.journal, services.supervisor);
  entries.install(app);

  app.get('/events', { config: { etag: true }, schema: { querystring: EventsQuery, ...R.tail } }, async (request, reply) => {
    if (await pages.sendKept(request, reply)) return reply;
    const query = request.query;
    if (await entries.send(request, reply, query)) return reply;
    const envelope = tailEnvelope(await readTailPage(services.journal, request.grain, query), query);
    return request.grain === NO_GRAIN ? { ...envelope, message: KEYLESS_LISTING } : envelope;
  });

  app.get('/events/stream', { schema: { querystring: EventStreamQuery, ...R.stream } }, async (request, reply) => {
    const { after, feed } = request.query;
    const cursor = cursorOf(request.headers['last-event-id'], after);
    // A top-level stream without a key has no records to follow: the typed EMPTY names the fix, never a stream that stays silent.
    if (request.grain === NO_GRAIN) return { ...empty(KEYLESS_LISTING), appendOnly: true, feed, after: cursor, latestSeq: 0, nextAfter: cursor };
    // HEAD is answered as the description (headers only): a stream would write frames with no status line before them.
    if (!wantsEventStream(request.headers.accept) || request.method === 'HEAD') {
      const path = request.url.split('?')[0];
      return ok({
        latestSeq: await services.journal.latestSeq(request.grain),
        subscription: {
          path,
          method: 'GET' as const,
          accept: 'text/event-stream' as const,
          feed,
          after: cursor,
          feeds: [...FEEDS],
          order: 'the backlog after the cursor first, then each new event as it commits, in seq order',
          frame: { event: SSE_EVENT_NAME, id: 'the event seq', data: 'the tail entry as JSON: {seq, at, kind, subject, summary, verb?, by?, actor?, deliverTo?, data}' },
          resume: 'reconnect with the header Last-Event-ID: <last seq received> (EventSource does this itself), or with ?after=<seq>; nothing is skipped or repeated',
          keepAlive: { comment: KEEP_ALIVE_COMMENT, everySeconds: sse.keepAliveMs / 1000 },
          slowSubscribers: `a subscriber more than ${sse.maxBufferedBytes} bytes behind is disconnected rather than buffered; it resumes with Last-Event-ID`,
          example: `curl -N -H 'Accept: text/event-stream' '${request.protocol}://${request.headers.host ?? '127.0.0.1'}${path}?feed=${feed}&after=${cursor}'`,
        },
      });
    }
    // One more stream than the caller's cap is refused here, while the answer can still be a 429.
    const caller = callerOf(request);
    sse.admit(caller);
    reply.hijack();
    sse.subscribe(request.grain, feed, cursor, reply.raw, { 'request-id': request.id }, caller.id);
  });
}
