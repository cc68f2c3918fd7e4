/**
 * Server-Sent Events for the event tail (`GET /events/stream`).
 *
 * One hub per app listens to the commit bus once and fans each committed batch
 * out to the subscribers of that grain, on the loop turn after the commit (the
 * writer's answer goes first). A frame is encoded once per event and the same
 * bytes are written straight to every subscriber's socket, so a fan-out costs
 * one socket write per subscriber and nothing else.
 *
 * Each subscriber keeps a cursor: the highest grain seq it has accounted for
 * (sent, or skipped because its feed does not show it). Events reach it in one
 * of two ways:
 * - live, from the bus, when the batch follows the cursor without a gap;
 * - from the journal (the backlog at connect, or to fill any gap), paged with
 *   back-pressure: a page is written only once the previous one drained.
 * So a subscriber sees every event of its feed once, in seq order.
 *
 * Another process's commit (a shared PostgreSQL journal) is heard as a grain
 * and a seq only: the hub reads the new events once for every subscriber of
 * the grain and hands them over as it hands a local batch, frames encoded
 * once. (Each subscriber reading them itself cost two statements a
 * subscriber: 50,000 subscribers over four processes missed an event for
 * 15 s.)
 *
 * Writers never wait on subscribers: the bus hands a batch over synchronously
 * and a subscriber that cannot keep up (more than `maxBufferedBytes` waiting in
 * its socket buffer) is dropped at once. Memory per connection stays bounded;
 * the client resumes with `Last-Event-ID`.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { CommitBus } from '../engine/bus.ts';
import { refusal } from '../domain/refusals.ts';
import { tailEntry } from '../engine/tail.ts';
import { inFeed, type Feed, type JournalEvent, type JournalStore } from '../journal/store.ts';
import { gauge } from '../lib/telemetry.ts';
import { DEFAULT_KEEP_ALIVE_MS, KEEP_ALIVE_COMMENT, SSE_EVENT_NAME } from '../domain/sse-wire.ts';

const sseSubscribers = gauge({
  name: 'legalwork_sse_subscribers',
  help: 'Open event streams (GET …/events/stream as Server-Sent Events), every grain\'s, on this process.',
  aggregate: 'sum',
});

export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Suggested reconnection delay sent to clients (`retry:`), in ms. */
const RETRY_MS = 2_000;
const CATCH_UP_PAGE = 500;

export interface SseOptions {
  keepAliveMs?: number;
  maxBufferedBytes?: number;
  /** Open streams one caller may hold (absent: no cap); `admit` refuses one more. */
  maxStreamsPerCaller?: number;
}

/** One `grain-event` frame: the id is the seq, the data the tail entry JSON. */
function frameOf(event: JournalEvent): Buffer {
  return Buffer.from(`event: ${SSE_EVENT_NAME}\nid: ${event.seq}\ndata: ${JSON.stringify(tailEntry(event))}\n\n`);
}

const CRLF = Buffer.from('\r\n');

/**
 * A message encoded once for every subscriber: as it goes on the wire of a
 * chunked HTTP/1.1 body (size line, bytes, CRLF) and raw (an HTTP/1.0 body).
 * Subscribers write these bytes straight to their socket, past the response
 * object's per-write bookkeeping: a fan-out is one socket write per subscriber.
 */
class Encoded {
  private chunkedBytes?: Buffer;
  constructor(readonly raw: Buffer) {}
  get chunked(): Buffer {
    return (this.chunkedBytes ??= Buffer.concat([Buffer.from(`${this.raw.length.toString(16)}\r\n`), this.raw, CRLF]));
  }
}

const KEEP_ALIVE = new Encoded(Buffer.from(`${KEEP_ALIVE_COMMENT}\n\n`));

class Subscriber {
  /** Highest grain seq accounted for: sent, or not in this feed. */
  cursor: number;
  private catchingUp = false;
  /** Highest seq announced by the bus while the journal was being read. */
  private announced = 0;
  /** Read the journal once more after the current catch-up: commits may have gone unheard meanwhile. */
  private again = false;
  closed = false;
  /** The caller whose stream slot this subscriber holds, until it is forgotten. */
  caller?: string;
  private readonly socket: Socket;
  /** Whether the body is chunked (HTTP/1.1) or raw until close (HTTP/1.0). */
  private readonly chunked: boolean;

  constructor(
    readonly hub: SseHub,
    readonly grain: string,
    readonly feed: Feed,
    after: number,
    readonly res: ServerResponse,
  ) {
    this.cursor = after;
    // A response being answered has its socket (`res.socket` is null only once it is detached).
    this.socket = res.socket as Socket;
    this.chunked = res.chunkedEncoding === true;
  }

  /** Straight to the socket, where the response's head already went (`subscribe` flushed it). */
  private write(message: Encoded): void {
    this.socket.write(this.chunked ? message.chunked : message.raw);
  }

  /** A committed batch of this grain, with its frames encoded once for everyone. */
  deliver(events: JournalEvent[], frame: (i: number) => Encoded): void {
    if (this.closed) return;
    const last = events[events.length - 1].seq;
    if (this.catchingUp) {
      this.announced = Math.max(this.announced, last);
      return;
    }
    for (let i = 0; i < events.length; i += 1) {
      const e = events[i];
      if (e.seq <= this.cursor) continue;
      if (e.seq !== this.cursor + 1) {
        // A gap (an append that bypassed the bus, or events missed while closed): read it from the journal.
        this.announced = last;
        void this.catchUp();
        return;
      }
      if (inFeed(this.feed, e)) this.write(frame(i));
      this.cursor = e.seq;
    }
    this.checkBuffer();
  }

  /** Another process committed to this grain through `seq` (null: unknown, read anyway): read it from the journal. */
  committedElsewhere(seq: number | null): void {
    if (this.closed || (seq !== null && seq <= this.cursor)) return;
    if (seq !== null) this.announced = Math.max(this.announced, seq);
    else this.again = true;
    void this.catchUp();
  }

  /** Open and not reading the journal itself: a batch handed to it is sent, or its gap read. */
  get idle(): boolean {
    return !this.closed && !this.catchingUp;
  }

  /** The stream's opening comment, the first bytes of its body. */
  open(comment: string): void {
    this.write(new Encoded(Buffer.from(comment)));
  }

  keepAlive(): void {
    if (this.closed) return;
    this.write(KEEP_ALIVE);
    this.checkBuffer();
  }

  /** A subscriber that does not drain is dropped, never buffered without bound. */
  private checkBuffer(): void {
    if (this.res.writableLength > this.hub.maxBufferedBytes) this.hub.drop(this);
  }

  /**
   * Reads from the journal after the cursor until it has caught up with
   * everything committed (including what the bus announced meanwhile).
   */
  async catchUp(): Promise<void> {
    if (this.catchingUp || this.closed) return;
    this.catchingUp = true;
    try {
      for (;;) {
        this.again = false;
        const latest = await this.hub.journal.latestSeq(this.grain);
        const page = await this.hub.journal.readTail(this.grain, { after: this.cursor, limit: CATCH_UP_PAGE, feed: this.feed });
        if (this.closed) return;
        // Every event of the page follows the cursor (read after it; nothing else moves it while catching up).
        for (const e of page) this.write(new Encoded(frameOf(e)));
        const full = page.length === CATCH_UP_PAGE;
        // A short page means the feed was read to the end of the tail, which is at least `latest`.
        this.cursor = full ? page[page.length - 1].seq : Math.max(this.cursor, latest, page.length ? page[page.length - 1].seq : 0);
        if (this.socket.writableNeedDrain) await this.drained();
        if (this.closed) return;
        if (!full && this.announced <= this.cursor && !this.again) return;
      }
    } catch {
      // The journal could not be read (closing under a shutdown): drop; the client resumes with Last-Event-ID.
      this.hub.drop(this);
    } finally {
      this.catchingUp = false;
    }
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.res.on('close', done);
    });
  }
}

export class SseHub {
  readonly keepAliveMs: number;
  readonly maxBufferedBytes: number;
  readonly maxStreamsPerCaller?: number;
  private readonly byGrain = new Map<string, Set<Subscriber>>();
  /** Open streams per caller, while a cap is set. */
  private readonly openBy = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  /** Open streams, every grain's. */
  private open = 0;
  private readonly untrack: () => void;
  /**
   * The bus calls this inside the writer's commit path; the fan-out runs on the
   * next turn of the loop instead, so the writer's answer never waits on it.
   */
  private readonly onCommitted = (events: JournalEvent[]) => {
    if (this.byGrain.has(events[0]?.grain)) setImmediate(() => this.fanOut(events));
  };
  /** Another process's commit: read once for the subscribers of its grain (of every grain, when unknown). */
  private readonly onCommittedElsewhere = (grain: string | null, seq: number) => {
    for (const g of grain === null ? [...this.byGrain.keys()] : [grain]) if (this.byGrain.has(g)) void this.readCommitted(g, grain === null ? null : seq);
  };
  /** Grains whose new events are being read for their subscribers: the highest seq heard of meanwhile, and whether a notice of an unknown seq was. */
  private readonly reading = new Map<string, { through: number; unknown: boolean }>();

  constructor(
    readonly journal: JournalStore,
    private readonly bus: CommitBus,
    options: SseOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.maxStreamsPerCaller = options.maxStreamsPerCaller;
    bus.on('committed', this.onCommitted);
    bus.on('committedElsewhere', this.onCommittedElsewhere);
    // One timer for every connection; it never keeps the process alive.
    this.timer = setInterval(() => this.keepAliveAll(), this.keepAliveMs);
    this.timer.unref();
    this.untrack = sseSubscribers.track(() => this.open);
  }

  /**
   * Refuses (429 STREAM_CAP) a caller that already holds the most open streams
   * one may; call it before the response is taken over, then `subscribe` with
   * the same caller on the same turn of the loop, so nothing slips in between.
   */
  admit(caller: { id: string; said: string; kind: string }): void {
    const limit = this.maxStreamsPerCaller;
    if (limit !== undefined && (this.openBy.get(caller.id) ?? 0) >= limit) {
      throw refusal('STREAM_CAP', { caller: caller.said, limit }, { streams: { limit, caller: caller.kind } });
    }
  }

  /**
   * Starts streaming on a response whose headers the caller has not sent yet:
   * the backlog after `after` first, then every new event of `feed` as it commits.
   * With `caller`, the stream holds one of that caller's slots until it closes.
   */
  subscribe(grain: string, feed: Feed, after: number, res: ServerResponse, headers: Record<string, string> = {}, caller?: string): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    // The head goes to the socket now, so every body byte after it can go there too, in order. (Through
    // `res.write` it may not: Node 24.22 holds a chunked write in the response until the next tick, and a
    // backlog read in the meantime reached the client before the status line.)
    res.flushHeaders();
    const subscriber = new Subscriber(this, grain, feed, after, res);
    // The first body bytes, so a client sees the stream open even before any event.
    subscriber.open(`retry: ${RETRY_MS}\n: legalwork event tail; feed=${feed}; after=${after}; keep-alive every ${this.keepAliveMs % 1000 === 0 ? `${this.keepAliveMs / 1000}s` : `${this.keepAliveMs}ms`}\n\n`);
    if (caller !== undefined && this.maxStreamsPerCaller !== undefined) {
      subscriber.caller = caller;
      this.openBy.set(caller, (this.openBy.get(caller) ?? 0) + 1);
    }
    let set = this.byGrain.get(grain);
    if (!set) this.byGrain.set(grain, (set = new Set()));
    set.add(subscriber);
    this.open++;
    res.on('close', () => this.forget(subscriber));
    res.on('error', () => this.drop(subscriber));
    // A client gone before its stream started would never say so again: its slot is freed now.
    if (res.destroyed) return this.forget(subscriber);
    void subscriber.catchUp();
  }

  /**
   * Another process committed to `grain` through `seq` (null: unknown, up to
   * the tail's end): the events after the lowest cursor of the grain's idle
   * subscribers are read, a page at a time, and fanned out as a local batch
   * is. One read per grain at a time; notices heard meanwhile extend it. A
   * subscriber reading the journal itself takes what was announced when it
   * is done (`deliver`). Should the read fail, each subscriber reads for
   * itself, as a gap is read.
   */
  private async readCommitted(grain: string, seq: number | null): Promise<void> {
    const heard = this.reading.get(grain);
    if (heard) return void (seq === null ? (heard.unknown = true) : (heard.through = Math.max(heard.through, seq)));
    const wanted = { through: seq ?? 0, unknown: seq === null };
    this.reading.set(grain, wanted);
    try {
      for (let before = -1; ; ) {
        if (wanted.unknown) {
          wanted.unknown = false;
          wanted.through = Math.max(wanted.through, await this.journal.latestSeq(grain));
        }
        let after = Infinity;
        for (const subscriber of this.byGrain.get(grain) ?? []) if (subscriber.idle) after = Math.min(after, subscriber.cursor);
        // Every idle subscriber has it, or none is left (what a notice heard meanwhile wants is read on the next turn).
        if (after >= wanted.through && !wanted.unknown) return;
        if (after >= wanted.through) continue;
        // Each page moves every idle subscriber it is read for (the events follow its cursor, gap-free): one that moved none is not read again.
        if (after === before) throw new Error(`no subscriber of grain ${grain} took the events after seq ${after}`);
        before = after;
        const page = await this.journal.readTail(grain, { after, limit: CATCH_UP_PAGE, feed: 'timeline' });
        if (page.length === 0) throw new Error(`seq ${wanted.through} of grain ${grain} was announced and cannot be read yet`);
        this.fanOut(page);
      }
    } catch {
      for (const subscriber of this.byGrain.get(grain) ?? []) subscriber.committedElsewhere(wanted.through || null);
    } finally {
      this.reading.delete(grain);
    }
  }

  /** Only for a non-empty batch of a grain with subscribers (see `onCommitted`); they may all have left since. */
  private fanOut(events: JournalEvent[]): void {
    const set = this.byGrain.get(events[0].grain);
    if (!set) return;
    // Encoded lazily, once per event, shared by every subscriber of the grain.
    const frames: Array<Encoded | undefined> = new Array(events.length);
    const frame = (i: number) => (frames[i] ??= new Encoded(frameOf(events[i])));
    for (const subscriber of set) subscriber.deliver(events, frame);
  }

  private keepAliveAll(): void {
    for (const set of this.byGrain.values()) for (const subscriber of set) subscriber.keepAlive();
  }

  /** Cuts a subscriber off at once: it overflowed, or its socket failed. */
  drop(subscriber: Subscriber): void {
    if (subscriber.closed) return;
    this.forget(subscriber);
    subscriber.res.destroy();
  }

  private forget(subscriber: Subscriber): void {
    subscriber.closed = true;
    // Its slot frees once, whichever of close, error or overflow comes first.
    const caller = subscriber.caller;
    if (caller !== undefined) {
      subscriber.caller = undefined;
      const open = (this.openBy.get(caller) ?? 1) - 1;
      if (open > 0) this.openBy.set(caller, open);
      else this.openBy.delete(caller);
    }
    const set = this.byGrain.get(subscriber.grain);
    if (!set) return;
    if (set.delete(subscriber)) this.open--;
    if (set.size === 0) this.byGrain.delete(subscriber.grain);
  }

  /** Ends every stream and stops listening, so the server can close. */
  close(): void {
    clearInterval(this.timer);
    this.untrack();
    this.bus.off('committed', this.onCommitted);
    this.bus.off('committedElsewhere', this.onCommittedElsewhere);
    for (const set of [...this.byGrain.values()]) {
      for (const subscriber of [...set]) {
        this.forget(subscriber);
        // A stream with nothing pending ends cleanly; one still holding bytes is cut, or close would wait on it.
        if (subscriber.res.writableLength === 0) subscriber.res.end();
        else subscriber.res.destroy();
      }
    }
  }
}
