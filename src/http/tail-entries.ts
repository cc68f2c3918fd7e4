/**
 * The event tail's entries kept as bytes (issue 48, item 2): a page of
 * `GET /events` is one range read whose bytes are sent nearly as stored.
 *
 * Each event's entry (what a page of its grain's tail shows of it) is
 * written once, as the event is appended (`Supervisor.tailEntry`), by the
 * very serializer the tail door writes a page's items with (taken from the
 * route's schema, as `stored-answers.ts` takes a list's), from `,"at"` on:
 * its seq is the journal's to give. The journal keeps it beside the event,
 * in the event's transaction, whole, with the seq it gave in front
 * (`NewEvent.entry`). A page of the timeline is then the adapter's one
 * statement (`readTailEntries`), which joins the kept items with commas as
 * they are stored; the envelope around them is a few
 * dozen bytes serialized by the route's own serializer. Nothing is parsed,
 * built or serialized per event.
 *
 * **Never the only way.** An event whose entry is not kept (an earlier
 * build's, a row written by hand: the range is then not whole) makes the
 * adapter answer no page, and the door builds it from the events as before,
 * answering an unreadable body as an `UnreadableEntry` in its place. The
 * sparse feeds (`reminders`, `time`) are built as before.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { NO_GRAIN } from '../engine/grains.ts';
import type { Supervisor } from '../engine/supervisor.ts';
import { tailEntry } from '../engine/tail.ts';
import type { JournalEvent, JournalStore, NewEvent, TailQuery } from '../journal/store.ts';
import { JSON_TYPE } from './etag.ts';
import { keptPagesOf, type KeptPages } from './kept-pages.ts';
import { stamped } from './sandbox.ts';
import { buildSerializer, okBranchOf } from './serializers.ts';

/** The route whose items are kept, as Fastify names it under each grain prefix. */
const TAIL = /(^|\/)events$/;

/** What an item's serializer writes first for a seq of 0: the entry kept is what follows. */
const SEQ_ZERO = '{"seq":0';

/** Where the items go in the envelope serialized around none. */
const NO_RESULTS = '"results":[]';

export class TailEntries {
  private serializeItem?: (entry: unknown) => string;

  constructor(
    private readonly journal: JournalStore,
    supervisor: Supervisor,
    private readonly pages: KeptPages,
  ) {
    supervisor.tailEntry = (event) => this.entryOf(event);
  }

  /** An event's entry as a page writes it, after its seq; undefined before the door's serializer is known, or when it does not write the seq first. */
  private entryOf(event: NewEvent): string | undefined {
    const bytes = this.serializeItem?.(tailEntry({ ...event, seq: 0 } as JournalEvent));
    return bytes?.startsWith(SEQ_ZERO) && bytes[SEQ_ZERO.length] === ',' ? bytes.slice(SEQ_ZERO.length) : undefined;
  }

  /**
   * Sends the timeline's page after `query.after` from its kept entries, and
   * says so; false: the page is not kept whole (or is empty, or another
   * feed's, or the top level without a key), and the door builds it.
   */
  async send(request: FastifyRequest, reply: FastifyReply, query: TailQuery): Promise<boolean> {
    if (query.feed !== 'timeline' || request.grain === NO_GRAIN || !this.journal.readTailEntries) return false;
    // The envelope as the route writes it (the grain's stamp too), around no items: the items go in their place.
    const frame = (latestSeq: number, nextAfter: number): [string, string] => {
      const envelope = reply.serializeInput(stamped(request.grain, { type: 'OK', appendOnly: true, feed: query.feed, after: query.after, latestSeq, results: [], nextAfter }) as Record<string, unknown>, '200') as string;
      const at = envelope.indexOf(NO_RESULTS);
      // Never met: the route's schema writes its results; were it not, no page goes out malformed.
      if (at < 0) throw new Error('the tail\'s envelope has no results to put the page\'s items in');
      return [`${envelope.slice(0, at)}"results":[`, `]${envelope.slice(at + NO_RESULTS.length)}`];
    };
    const page = await this.journal.readTailEntries(request.grain, query.after, query.limit, frame);
    if (page === null) return false;
    // Read in one range, it is not kept among the pages built from their records (`kept-pages.ts`): kept, the page's bytes
    // would outlive the request, and a tail read at ever new cursors made the collector pay for every one of them.
    this.pages.forgo(request);
    reply.header('content-type', JSON_TYPE);
    reply.send(page);
    return true;
  }

  /** Takes the items' serializer of the tail door under `app` (an onRoute hook of its plugin, added before its routes). */
  install(app: FastifyInstance): void {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (route.method !== 'GET' || !TAIL.test(route.url) || this.serializeItem) return;
      const items = okBranchOf((route.schema?.response as Record<string, unknown> | undefined)?.[200])?.properties?.results?.items;
      if (items) this.serializeItem = buildSerializer(app.getSchemas(), {})({ schema: items as object, method: 'GET', url: route.url, httpStatus: '200' }) as (entry: unknown) => string;
    });
  }
}

const perJournal = new WeakMap<object, TailEntries>();

/** The one `TailEntries` of a journal (the tail door of every grain prefix shares it, as they share the journal). */
export function tailEntriesOf(journal: JournalStore, supervisor: Supervisor): TailEntries {
  let entries = perJournal.get(journal);
  if (!entries) perJournal.set(journal, (entries = new TailEntries(journal, supervisor, keptPagesOf(journal))));
  return entries;
}
