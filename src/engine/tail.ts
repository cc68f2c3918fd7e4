/**
 * The event tail of a grain: the grain's journal as the outside world sees it,
 * append-only and ordered by `seq`, cursored with `after`. Nothing here is
 * stored apart from the journal; every page is read from it.
 *
 * Paging never skips or repeats an event, also while writes land: seqs are
 * assigned inside the committing transaction, gap-free per grain, and a reader
 * sees a transaction whole or not at all, so "everything after seq N" is
 * stable once N has been seen. `latestSeq` is read after the page, so it is
 * never below the page's last seq.
 */
import type { Feed, JournalEvent, JournalStore, TailQuery } from '../journal/store.ts';
import { STREAM_UNREADABLE, type UnreadableEntry } from '../schemas/unreadable.ts';

/** The journal's own tail query: the tail pages exactly what the store reads. */
export type { TailQuery };


/** One tail entry: what a subscriber sees of a journal event (no internal cause or stream version), or the `UnreadableEntry` in its place. */
export type TailEntry = Pick<JournalEvent, 'seq' | 'at' | 'kind' | 'subject' | 'summary' | 'verb' | 'by' | 'actor' | 'deliverTo' | 'data'> | UnreadableEntry;

export function tailEntry(e: JournalEvent): TailEntry {
  if (e.unreadable) return unreadableEntry(e);
  return {
    seq: e.seq,
    at: e.at,
    kind: e.kind,
    subject: e.subject,
    summary: e.summary,
    ...(e.verb !== undefined ? { verb: e.verb } : {}),
    ...(e.by !== undefined ? { by: e.by } : {}),
    ...(e.actor !== undefined ? { actor: e.actor } : {}),
    ...(e.deliverTo !== undefined ? { deliverTo: e.deliverTo } : {}),
    data: e.data,
  };
}

/** An event whose body does not read, as the tail names it: where it stands, never what it held. */
function unreadableEntry(e: JournalEvent): UnreadableEntry {
  return {
    seq: e.seq,
    at: e.at,
    subject: e.stream,
    unreadable: true,
    code: STREAM_UNREADABLE,
    error: `the event at seq ${e.seq} (of stream ${e.stream}) cannot be read from the journal; the tail goes on past it`,
    fix: "report it to the operator with its seq and this answer's request-id, who finds the event in the journal by its grain and seq",
  };
}

export interface TailPage {
  latestSeq: number;
  results: TailEntry[];
  /** The cursor for the next page: the last seq returned, or `after` when nothing was. */
  nextAfter: number;
}

export async function readTailPage(journal: JournalStore, grain: string, query: TailQuery): Promise<TailPage> {
  const events = await journal.readTail(grain, query);
  const latestSeq = await journal.latestSeq(grain);
  return { latestSeq, results: events.map(tailEntry), nextAfter: events.length ? events[events.length - 1].seq : query.after };
}

const FEED_WORDS: Record<Feed, string> = {
  timeline: 'event',
  reminders: 'reminder (reminder.* from ladder rungs)',
  time: 'event with a named actor (acks, consents, attestation outcomes, client directions)',
};

/** The typed envelope: OK with results, or EMPTY saying where the tail stands. */
export function tailEnvelope(page: TailPage, query: TailQuery) {
  const base = { appendOnly: true as const, feed: query.feed, after: query.after, latestSeq: page.latestSeq };
  if (page.results.length) return { type: 'OK' as const, ...base, results: page.results, nextAfter: page.nextAfter };
  const message =
    page.latestSeq === 0
      ? 'this grain\'s tail is empty: nothing has been journaled here yet'
      : `no ${FEED_WORDS[query.feed]} after seq ${query.after}; the tail ends at seq ${page.latestSeq}. Poll again with after=${Math.max(query.after, 0)} or subscribe to GET /events/stream`;
  return { type: 'EMPTY' as const, ...base, results: [] as TailEntry[], nextAfter: query.after, message };
}
