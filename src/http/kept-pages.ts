/**
 * Pages kept by their grain's seq (issue 37: "a page costs a lookup").
 *
 * A page of `GET /matters`, `GET /assets` or the event tail is a function of
 * its grain's journal and of the request's path and query, nothing else: no
 * clock is read, nothing of the caller but the grain shows (a sandbox's
 * stamp is its grain's), and its items are read from the grain's own
 * streams. And every write to a grain moves the grain's seq, in the very
 * transaction that journals it (`latestSeq`: the `grain_heads` row on
 * PostgreSQL, written by every process; on SQLite the writer's own count,
 * moved once the batch is durable). So a page built after reading the seq
 * is the page for as long as the seq stands: the bytes sent are kept with
 * their ETag under the seq read before they were built, and a request that
 * finds the seq unchanged is sent them as they are. Reading the seq first
 * means a page kept may be newer than its seq, never older: a write that
 * lands while the page is built moves the seq, and the next request builds.
 *
 * **Never the truth.** A cache of the journal like the answer rows: one
 * write anywhere in the grain (another process's too) and the grain's kept
 * pages are passed over until each is built again. What it does not see is
 * a row damaged by hand under a seq that did not move: a page kept before
 * is served until the grain's next write (the answer rows' checksum and the
 * tail's unreadable entry tell it then).
 *
 * **Bounded** by bytes, keys counted (`KEPT_PAGE_BYTES` in all; a page over
 * `MAX_KEPT_PAGE` is never kept): past it the page used longest ago is
 * forgotten. It pays only where a grain is read more often than it is
 * written: a busy grain's pages are rebuilt at each write, at the cost of
 * the one lookup of its seq more.
 *
 * **Where it sits.** A route's handler asks `sendKept` first; false, it
 * builds its page as before, and this module's onSend (installed on the
 * route's plugin: `install`) takes a 200's bytes, tags them (`etag.ts`
 * hashes nothing more) and keeps them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JournalStore } from '../journal/store.ts';
import { bytesToKeep, etagOf, sendKeptJson, tagKnown } from './etag.ts';

/** The bytes of every kept page together: about 250 pages of 100 Matters. */
export const KEPT_PAGE_BYTES = 16 * 1024 * 1024;
/** A page larger than this is built at every read (a tail page of 500 large events). */
export const MAX_KEPT_PAGE = 1024 * 1024;

interface Kept {
  seq: number;
  bytes: Buffer;
  etag: string;
}

/** What a kept page holds: its bytes, and its key (a path and query as long as the edge allows; an EMPTY page's bytes are fewer). */
const sizeOf = (key: string, page: Kept) => page.bytes.length + key.length;

export class KeptPages {
  /** By grain and request path with its query; a Map iterates in insertion order, so the first is the one used longest ago. */
  private readonly pages = new Map<string, Kept>();
  private held = 0;
  /** Requests building a page to keep: under which key, at which seq. */
  private readonly building = new WeakMap<FastifyRequest, { key: string; seq: number }>();

  constructor(
    private readonly journal: Pick<JournalStore, 'latestSeq'>,
    private readonly maxBytes = KEPT_PAGE_BYTES,
  ) {}

  /**
   * Sends the page kept for this request when its grain's seq has not moved
   * since it was built, and says so; false: the route builds the page, which
   * is kept as it is sent.
   */
  async sendKept(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const seq = await this.journal.latestSeq(request.grain);
    const key = `${request.grain} ${request.url}`;
    const kept = this.pages.get(key);
    if (kept !== undefined && kept.seq === seq) {
      this.pages.delete(key);
      this.pages.set(key, kept);
      sendKeptJson(reply, kept.bytes, kept.etag);
      return true;
    }
    this.building.set(request, { key, seq });
    return false;
  }

  /** The page this request sends is not to be kept (it is read as cheaply as a kept one: the tail's kept entries, `tail-entries.ts`). */
  forgo(request: FastifyRequest): void {
    this.building.delete(request);
  }

  /** The bytes of every page held now, with their keys. */
  get bytesHeld(): number {
    return this.held;
  }

  private keep(key: string, page: Kept): void {
    this.forget(key);
    this.pages.set(key, page);
    this.held += sizeOf(key, page);
    for (const [oldest] of this.pages) {
      if (this.held <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const kept = this.pages.get(key);
    if (kept === undefined) return;
    this.pages.delete(key);
    this.held -= sizeOf(key, kept);
  }

  /** Takes a built page's bytes and tags them; every other reply of the plugin passes untouched. */
  private readonly taken = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void): void => {
    const building = this.building.get(request);
    if (building === undefined) return done(null, payload);
    this.building.delete(request);
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload)) || payload.length > MAX_KEPT_PAGE) return done(null, payload);
    const etag = etagOf(payload);
    const bytes = bytesToKeep(payload);
    this.keep(building.key, { seq: building.seq, bytes, etag });
    tagKnown(reply, etag);
    done(null, payload);
  };

  /** Installs the onSend that takes built pages, on a plugin whose routes keep them (ahead of the routes' own hooks, as `answer-bytes.ts` says). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', this.taken);
  }
}

const perJournal = new WeakMap<object, KeptPages>();

/** The one `KeptPages` of a journal (the Matter doors and the tail of every grain prefix share it, as they share the journal). */
export function keptPagesOf(journal: Pick<JournalStore, 'latestSeq'>): KeptPages {
  let pages = perJournal.get(journal);
  if (!pages) perJournal.set(journal, (pages = new KeptPages(journal)));
  return pages;
}
