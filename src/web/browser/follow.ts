/**
 * Following a record's head while its page is open: over its grain's event
 * stream when there is one the page may read, else (no stream, or a stream
 * that closes for good: the top level's needs an API key the page does not
 * send) by reading the inspection again every few seconds, said on the page.
 * A burst of events makes one refresh at a time. The browser's EventSource
 * and timers are handed in, so this is unit-tested without a browser.
 */
import { SSE_EVENT_NAME } from '../../domain/sse-wire.ts';

/** How often a page that cannot follow the event stream reads the inspection again. */
export const POLL_MS = 5_000;

/** What following needs of an event stream (the browser's `EventSource`). */
export interface StreamSource {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: { data?: unknown }) => void): void;
  close(): void;
}

export interface FollowPorts {
  /** The browser's event streams: how one is opened at a path, and the `readyState` of one closed for good (not reconnecting); absent where it has none. */
  streams?: { open(path: string): StreamSource; closed: number };
  /** Runs `work` every `ms`. */
  every(ms: number, work: () => void): void;
}

export interface Follower {
  /** The stream is open: the page follows it (`path`). */
  streaming(path: string): void;
  /** The page reads the inspection every POLL_MS instead, for `reason`. */
  polling(reason: string): void;
  /** The record may have moved: read its head again. */
  moved(): void;
}

export interface Followed {
  /** The record's id: the stream carries the whole grain's events, and only its own move it. */
  subject: string;
  /** Its grain's event stream (`links.stream`), if the inspection names one. */
  stream?: string;
  /** The head's seq: the stream starts after it. */
  after: number;
  /** The page's address, which `stream` is relative to. */
  base: string;
}

/** Follows `followed`'s head with the ports given, telling `on` how it follows and when the record may have moved. */
export function follow(followed: Followed, ports: FollowPorts, on: Follower): void {
  const poll = (reason: string) => {
    on.polling(reason);
    ports.every(POLL_MS, () => on.moved());
  };
  const { streams } = ports;
  if (!followed.stream || !streams) return poll('this page has no event stream to follow');
  const url = new URL(followed.stream, followed.base);
  url.searchParams.set('after', String(followed.after));
  const source = streams.open(url.pathname + url.search);
  let opened = false;
  source.addEventListener('open', () => {
    opened = true;
    on.streaming(url.pathname);
  });
  source.addEventListener(SSE_EVENT_NAME, (message) => {
    try {
      const entry: unknown = JSON.parse(String(message.data));
      if (typeof entry === 'object' && entry !== null && Reflect.get(entry, 'subject') === followed.subject) on.moved();
    } catch {
      // A frame that is not JSON is not ours.
    }
  });
  source.addEventListener('error', () => {
    // Closed for good (not a reconnect): the door answered something other than a stream, e.g. the top level without a key.
    if (source.readyState !== streams.closed) return;
    source.close();
    poll(opened ? 'the event stream closed' : 'the event stream of this grain needs an API key, which a page does not send');
  });
}

/**
 * `work` run one at a time: a call while it runs asks for one more run after
 * it, however many calls come meanwhile (a burst of events is one refresh).
 * A failure goes to `failed`; the next call runs again.
 */
export function oneAtATime(work: () => Promise<void>, failed: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    work()
      .catch(failed)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}
