/**
 * A journal event as the SQL adapters (SQLite, PostgreSQL) store it: the
 * columns they index (grain, seq, stream, version, at, kind, actor) and the
 * rest of the event as one JSON text. Written once for both, so an event
 * reads back the same from either.
 */
import { UnreadableEvent, type EntityHead, type JournalEvent, type NewEvent, type StreamHead, type StreamWrite } from './store.ts';

/**
 * An event row as the adapters read it: its columns in `EVENT_COLUMNS`
 * order, as an array (SQLite's raw mode, pg's `rowMode: 'array'`). An array
 * rather than an object per row: a page of 100 events read a third faster
 * (issue 18's profile of the event tail).
 */
export type EventRow = [grain: string, seq: number | string, stream: string, version: number, at: string, kind: string, actor: string | null, body: string];

/** The columns every read of events selects, in `EventRow` order. */
export const EVENT_COLUMNS = 'grain, seq, stream, version, at, kind, actor, body';

/** An append waiting for its group commit. */
export interface PendingAppend {
  grain: string;
  writes: StreamWrite[];
  resolve: (events: JournalEvent[]) => void;
  reject: (error: unknown) => void;
}

/** The columns of a new event that are not its position. */
export function columnsOf(e: NewEvent): { at: string; kind: string; actor: string | null; body: string; entry?: string } {
  // The tail's entry is kept beside the body, never in it (`NewEvent.entry`).
  const { kind, at, actor, entry, ...rest } = e;
  return { at, kind, actor: actor ?? null, body: JSON.stringify(rest), ...(entry !== undefined ? { entry } : {}) };
}

/** The row of a new event at its position. */
export function rowOf(grain: string, seq: number, stream: string, version: number, e: NewEvent): EventRow {
  const { at, kind, actor, body } = columnsOf(e);
  return [grain, seq, stream, version, at, kind, actor, body];
}

/** The event a row holds, as every reader sees it (sharing nothing with the row); `UnreadableEvent` when its body does not read. */
export function eventOf([grain, seq, stream, version, at, kind, actor, body]: EventRow): JournalEvent {
  const rest = bodyOf(stream, seq, body);
  return { grain, seq: Number(seq), stream, version, at, kind, ...(actor === null ? {} : { actor }), ...rest };
}

/** An event of a range (a tail, the outbox's intents): as `eventOf`, or, when its body does not read, its columns alone, marked `unreadable` (see `JournalEvent.unreadable`). */
export function rangeEventOf(row: EventRow): JournalEvent {
  try {
    return eventOf(row);
  } catch (error) {
    if (!(error instanceof UnreadableEvent)) throw error;
    const [grain, seq, stream, version, at, kind, actor] = row;
    return { grain, seq: Number(seq), stream, version, at, kind, ...(actor === null ? {} : { actor }), subject: stream, summary: '', data: {}, unreadable: error };
  }
}

/** An event's body: a JSON object, as `columnsOf` wrote it; anything else is `UnreadableEvent`. */
function bodyOf(stream: string, seq: number | string, body: string): Omit<NewEvent, 'kind' | 'at' | 'actor'> {
  let rest: unknown;
  try {
    rest = JSON.parse(body);
  } catch {
    rest = undefined;
  }
  if (rest === null || typeof rest !== 'object' || Array.isArray(rest)) throw new UnreadableEvent(stream, Number(seq));
  return rest as Omit<NewEvent, 'kind' | 'at' | 'actor'>;
}

/** The head a `streamHeads` row names; one whose body does not read is marked `unreadable`, with an empty `data`. */
export function streamHeadOf(stream: string, seq: number | string, body: string): StreamHead {
  try {
    return { stream, seq: Number(seq), data: bodyOf(stream, seq, body).data };
  } catch (error) {
    if (!(error instanceof UnreadableEvent)) throw error;
    return { stream, seq: Number(seq), data: {}, unreadable: error };
  }
}

/** An opening event's row joined with its stream's snapshot (version, machine, state: null when it has none). */
export type HeadRow = [...EventRow, number | null, string | null, string | null];

/**
 * The select both SQL adapters read stream heads with; the caller adds its
 * WHERE. A snapshot is joined only when it reflects the stream's head: one
 * left behind (an append that wrote none, a rewrite that raced a commit) is
 * not current, and reads as none. The head's version is looked up only for
 * a stream that has a row (the subquery names `s`): a list of streams
 * without any (Assets) pays for no more than the probe of `snapshots`.
 */
export const HEAD_SELECT = `SELECT ${EVENT_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')}, s.version, s.machine, s.state FROM events e LEFT JOIN snapshots s ON s.stream = e.stream AND s.version = (SELECT max(x.version) FROM events x WHERE x.stream = s.stream)`;

export function headOf(row: HeadRow): EntityHead {
  const [version, machine, state] = row.slice(8) as [number | null, string, string];
  const snapshot = version === null ? null : { version, machine, state };
  try {
    return { opened: eventOf(row.slice(0, 8) as EventRow), snapshot };
  } catch (error) {
    if (!(error instanceof UnreadableEvent)) throw error;
    // The row's columns still place it (its stream, its seq for the page's cursor); its body is not read.
    const [grain, seq, stream, eventVersion, at, kind] = row;
    return { opened: { grain, seq: Number(seq), stream, version: eventVersion, at, kind, subject: stream, summary: '', data: {} }, snapshot, unreadable: error };
  }
}
