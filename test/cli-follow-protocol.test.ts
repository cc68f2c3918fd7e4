/**
 * The follower's reconnection protocol, against a scripted SSE server on a
 * real loopback port: what it sends when it resumes (Last-Event-ID and
 * `after`), that a replayed frame is not delivered twice, that a silent
 * connection is abandoned, and how a refusal and a draining service differ.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { followEvents, type FollowOutcome } from '../src/cli/follow.ts';
import { ServiceClient } from '../src/client/service-client.ts';
import { HANG_MS } from './helpers/wait.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, connection: number) => void;
const servers: ReturnType<typeof createServer>[] = [];

async function scripted(handler: Handler) {
  let connection = 0;
  const seen: { lastEventId?: string; after?: string | null; feed?: string | null; accept?: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    seen.push({ lastEventId: req.headers['last-event-id'] as string | undefined, after: url.searchParams.get('after'), feed: url.searchParams.get('feed'), accept: req.headers.accept, authorization: req.headers.authorization });
    handler(req, res, connection++);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const open = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
const frame = (seq: number) => `event: grain-event\nid: ${seq}\ndata: ${JSON.stringify({ seq, kind: 'k' })}\n\n`;

function follow(base: string, options: { feed?: string; after?: number; idleTimeoutMs?: number; key?: string; stopAfter?: number } = {}) {
  const events: number[] = [];
  const progress: string[] = [];
  const stop = new AbortController();
  const done: Promise<FollowOutcome> = followEvents({
    client: new ServiceClient({ baseUrl: base, key: options.key, timeoutMs: HANG_MS }),
    path: '/events/stream',
    feed: options.feed,
    after: options.after,
    signal: stop.signal,
    idleTimeoutMs: options.idleTimeoutMs,
    initialBackoffMs: 20,
    maxBackoffMs: 100,
    onEvent: (event) => {
      events.push((event as { seq: number }).seq);
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) stop.abort();
    },
    progress: (m) => progress.push(m),
  });
  return { events, progress, done, stop };
}

it('resumes a dropped stream with Last-Event-ID and after, delivering each event once', async () => {
  const { base, seen } = await scripted((_req, res, n) => {
    open(res);
    if (n === 0) {
      // The connection drops once the frames are written out (not after a guessed 20 ms).
      res.write(': keep-alive\n\n' + frame(1) + frame(2) + frame(3), () => res.socket?.destroy());
    } else {
      res.write(frame(3) + frame(4) + frame(5)); // 3 is replayed; it must not be delivered again
    }
  });
  const run = follow(base, { feed: 'reminders', key: 'lwk_k', stopAfter: 5 });
  expect(await run.done).toEqual({ outcome: 'stopped', lastSeq: '5' });
  expect(run.events).toEqual([1, 2, 3, 4, 5]);
  expect(seen[0]).toEqual({ lastEventId: undefined, after: null, feed: 'reminders', accept: 'text/event-stream', authorization: 'Bearer lwk_k' });
  expect(seen[1]).toEqual(expect.objectContaining({ lastEventId: '3', after: '3', feed: 'reminders' }));
  expect(run.progress.join('\n')).toMatch(/connection dropped; reconnecting in \d+ ms to resume after seq 3/);
  expect(run.progress.join('\n')).toContain('reconnected, resuming after seq 3');
});

it('starts after --after, and abandons a connection that goes silent', async () => {
  const { base, seen } = await scripted((_req, res, n) => {
    open(res);
    if (n === 0) res.write(frame(8)); // then nothing: no keep-alive either
    else res.write(frame(9));
  });
  const run = follow(base, { after: 7, idleTimeoutMs: 200, stopAfter: 2 });
  expect(await run.done).toEqual({ outcome: 'stopped', lastSeq: '9' });
  expect(run.events).toEqual([8, 9]);
  expect(seen[0]).toEqual(expect.objectContaining({ lastEventId: '7', after: '7' }));
  expect(seen[1]).toEqual(expect.objectContaining({ lastEventId: '8', after: '8' }));
  expect(run.progress.join('\n')).toMatch(/no data for 200 ms/);
});

it('waits out a draining service (5xx) once the stream was reached, but reports a refusal at once', async () => {
  const { base } = await scripted((_req, res, n) => {
    if (n === 0) {
      open(res);
      res.end(frame(1));
    } else if (n === 1) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"closing"}');
    } else if (n === 2) {
      open(res);
      res.write(frame(2));
    }
  });
  const run = follow(base, { stopAfter: 2 });
  expect(await run.done).toEqual({ outcome: 'stopped', lastSeq: '2' });
  expect(run.progress.join('\n')).toContain('the service answered 503');

  const refused = await scripted((_req, res) => res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"feed off the enum","code":"INVALID_REQUEST"}'));
  const outcome = await follow(refused.base, { feed: 'x' }).done;
  expect(outcome).toEqual({ outcome: 'refused', answer: expect.objectContaining({ status: 422, body: { error: 'feed off the enum', code: 'INVALID_REQUEST' } }) });
  expect(refused.seen).toHaveLength(1);
});
