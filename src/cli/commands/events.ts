/** `legalwork events tail [--follow]`: a grain's event tail, once or live. */
import { optionalInt, optionalString, UsageError, type Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, followEvents } from '../follow.ts';
import { FEEDS } from '../../journal/store.ts';
import type { Query } from '../../client/service-client.ts';

const tail: Command = {
  path: ['events', 'tail'],
  summary: "Read a grain's event tail; --follow keeps streaming new events.",
  description: [
    'Without --follow: GET /events, one page (the OK envelope with results and',
    'latestSeq, or a typed EMPTY after the last event).',
    'With --follow: GET /events/stream (Server-Sent Events). The backlog after',
    '--after comes first, then each event as it commits, one JSON per line on',
    'stdout. A dropped connection (or a restart of the service) is resumed with',
    'Last-Event-ID: nothing is lost or repeated. Progress goes to stderr. Stop',
    'with Ctrl-C (exit 0). A service that cannot be reached at the start is',
    'exit 3; once reached, it is waited for.',
  ].join('\n'),
  grain: true,
  remote: true,
  options: {
    follow: { type: 'boolean', short: 'f', description: 'keep streaming new events as they commit' },
    after: { type: 'string', value: '<seq>', description: 'only events with a seq greater than this' },
    feed: { type: 'string', value: `<${FEEDS.join('|')}>`, description: 'which feed (default timeline)' },
    limit: { type: 'string', value: '<n>', description: 'page size without --follow (1-500, default 100)' },
    'idle-timeout': { type: 'string', value: '<ms>', description: `with --follow, reconnect after this long without data (default ${DEFAULT_IDLE_TIMEOUT_MS})` },
  },
  async run(ctx) {
    const after = optionalInt(ctx.values, 'after', { min: 0 });
    // Passed as given: the service refuses, worded, a feed off its enum.
    const feed = optionalString(ctx.values, 'feed') as Query<'/events', 'get'>['feed'];
    if (ctx.values.follow && ctx.values.limit !== undefined) throw new UsageError('--limit pages the tail without --follow; a follower takes every event');
    if (!ctx.values.follow && ctx.values['idle-timeout'] !== undefined) throw new UsageError('--idle-timeout applies only with --follow');
    const client = ctx.client();
    if (!ctx.values.follow) {
      const limit = optionalInt(ctx.values, 'limit', { min: 1, max: 500 });
      return ctx.out.answer(await client.request<'/events', 'get'>('GET', `${ctx.prefix}/events`, { query: { after, limit, feed } }));
    }
    const idleTimeoutMs = optionalInt(ctx.values, 'idle-timeout', { min: 100 });
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const result = await followEvents({
        client,
        path: `${ctx.prefix}/events/stream`,
        feed,
        after,
        signal: stop.signal,
        ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
        onEvent: (event) => ctx.out.json(event),
        progress: (message) => ctx.out.progress(message),
      });
      if (result.outcome === 'stopped') {
        ctx.out.progress(`stopped${result.lastSeq !== undefined ? ` after seq ${result.lastSeq}` : ''}`);
        return EXIT.ok;
      }
      if (result.outcome === 'unreachable') return ctx.out.unreachable(result.error);
      if (result.answer.ok) {
        // A 2xx that is not a stream: the service did not honour the subscription.
        ctx.out.json(result.answer.body);
        ctx.out.progress(`the service answered ${result.answer.status} ${result.answer.contentType || 'without a content type'} instead of an event stream`);
        return EXIT.serviceError;
      }
      return ctx.out.answer(result.answer);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

export const eventCommands = [tail];
