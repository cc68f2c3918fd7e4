/**
 * Follows a grain's event stream (`GET /events/stream`, Server-Sent Events)
 * for as long as the caller wants, surviving dropped connections: after a
 * drop (a network blip, a silent connection, the service restarting) it
 * reconnects with backoff and resumes with `Last-Event-ID` set to the last
 * seq it delivered, so no event is lost and none is delivered twice.
 *
 * A first connection that fails is reported at once (the address is probably
 * wrong); once the stream has been reached, failures to reconnect are
 * retried until the caller stops following.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { answerOf, describeFetchError, ServiceUnreachable, type ServiceAnswer, type ServiceClient } from '../client/service-client.ts';
import { SseParser } from './sse-parser.ts';
// The wire constants only: the CLI's build must not take in the service's SSE hub.
import { DEFAULT_KEEP_ALIVE_MS, SSE_EVENT_NAME } from '../domain/sse-wire.ts';

/** Three missed keep-alive pings of the service mean the connection is dead. */
export const DEFAULT_IDLE_TIMEOUT_MS = 3 * DEFAULT_KEEP_ALIVE_MS;

export interface FollowOptions {
  client: ServiceClient;
  /** The stream's path, e.g. `/events/stream` or `/workspaces/ws_…/events/stream`. */
  path: string;
  feed?: string;
  /** Start after this seq (the backlog after it comes first). */
  after?: number;
  /** Called for each event, in order, exactly once. */
  onEvent(event: unknown, seq: string): void;
  progress(message: string): void;
  /** Aborting it stops following. */
  signal: AbortSignal;
  idleTimeoutMs?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export type FollowOutcome =
  | { outcome: 'stopped'; lastSeq?: string }
  | { outcome: 'refused'; answer: ServiceAnswer }
  | { outcome: 'unreachable'; error: ServiceUnreachable };

export async function followEvents(options: FollowOptions): Promise<FollowOutcome> {
  const { client, signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const initialBackoff = options.initialBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 5_000;
  let lastSeq = options.after !== undefined ? String(options.after) : undefined;
  let reached = false;
  let backoff = initialBackoff;

  const stopped = (): FollowOutcome => ({ outcome: 'stopped', ...(lastSeq !== undefined ? { lastSeq } : {}) });
  const wait = async (why: string) => {
    options.progress(`${why}; reconnecting in ${backoff} ms${lastSeq !== undefined ? ` to resume after seq ${lastSeq}` : ''}`);
    await sleep(backoff, undefined, { signal }).catch(() => undefined);
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  while (!signal.aborted) {
    const connection = new AbortController();
    const abortConnection = () => connection.abort();
    signal.addEventListener('abort', abortConnection, { once: true });
    try {
      const url = client.url(options.path, { feed: options.feed, after: lastSeq });
      let response: Response;
      // The timeout covers the wait for the stream to open, never the stream itself.
      let timedOut = false;
      const opening = setTimeout(() => {
        timedOut = true;
        connection.abort();
      }, client.timeoutMs);
      try {
        response = await fetch(url, {
          headers: { ...client.headers(), accept: 'text/event-stream', ...(lastSeq !== undefined ? { 'last-event-id': lastSeq } : {}) },
          signal: connection.signal,
        });
      } catch (error) {
        if (signal.aborted) return stopped();
        const failure = new ServiceUnreachable(client.baseUrl, describeFetchError(error, timedOut ? client.timeoutMs : undefined));
        if (!reached) return { outcome: 'unreachable', error: failure };
        await wait(`cannot reach the service (${failure.reason})`);
        continue;
      } finally {
        clearTimeout(opening);
      }

      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || !type.includes('text/event-stream') || !response.body) {
        const answer = await readAnswer(response);
        // A service that is draining or restarting (5xx) is waited out once the stream was reached.
        if (reached && response.status >= 500) {
          await wait(`the service answered ${response.status}`);
          continue;
        }
        return { outcome: 'refused', answer };
      }

      options.progress(reached ? `reconnected${lastSeq !== undefined ? `, resuming after seq ${lastSeq}` : ''}` : `following ${options.path}${options.feed ? ` (feed ${options.feed})` : ''}`);
      reached = true;
      backoff = initialBackoff;

      const parser = new SseParser();
      const decoder = new TextDecoder();
      let idle: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(), idleTimeoutMs);
      };
      let silent = false;
      arm();
      try {
        for await (const chunk of response.body) {
          arm();
          for (const frame of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            if (frame.event !== SSE_EVENT_NAME || frame.id === undefined) continue;
            // A replayed frame (the server resent what was already delivered) is skipped.
            if (lastSeq !== undefined && isNotAfter(frame.id, lastSeq)) continue;
            let event: unknown;
            try {
              event = JSON.parse(frame.data);
            } catch {
              event = frame.data;
            }
            options.onEvent(event, frame.id);
            lastSeq = frame.id;
          }
        }
      } catch {
        silent = connection.signal.aborted && !signal.aborted;
      } finally {
        clearTimeout(idle);
      }
      if (parser.retryMs !== undefined) backoff = Math.min(Math.max(parser.retryMs, initialBackoff), maxBackoff);
      if (signal.aborted) return stopped();
      await wait(silent ? `no data for ${idleTimeoutMs} ms (the keep-alive stopped)` : 'the connection dropped');
    } finally {
      signal.removeEventListener('abort', abortConnection);
    }
  }
  return stopped();
}

/** Seqs are integers; compare them as numbers when they are. */
function isNotAfter(id: string, last: string): boolean {
  if (/^\d+$/.test(id) && /^\d+$/.test(last)) return Number(id) <= Number(last);
  return id === last;
}

/** The answer given instead of a stream. An empty body stays `""` (what follow has always printed) where the client reads `null`. */
async function readAnswer(response: Response): Promise<ServiceAnswer> {
  const text = await response.text().catch(() => '');
  const answer = answerOf(response, text);
  return text === '' ? { ...answer, body: '' } : answer;
}
