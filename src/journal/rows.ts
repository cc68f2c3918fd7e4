/**
 * A journal event as the SQL adapters (SQLite, PostgreSQL) store it: the
 * columns they index (grain, seq, stream, version, at, kind, actor) and the
 * rest of the event as one JSON text. Written once for both, so an event
 * reads back the same from either.
 */
import type { JournalEvent, NewEvent, StreamWrite } from './store.ts';

export interface EventRow {
  grain: string;
  /** PostgreSQL answers a bigint as text. */
  seq: number | string;
  stream: string;
  version: number;
  at: string;
  kind: string;
  actor: string | null;
  body: string;
}

/** An append waiting for its group commit. */
export interface PendingAppend {
  grain: string;
  writes: StreamWrite[];
  resolve: (events: JournalEvent[]) => void;
  reject: (error: unknown) => void;
}

/** The columns of a new event that are not its position. */
export function columnsOf(e: NewEvent): Pick<EventRow, 'at' | 'kind' | 'actor' | 'body'> {
  const { kind, at, actor, ...rest } = e;
  return { at, kind, actor: actor ?? null, body: JSON.stringify(rest) };
}

/** The event a row holds, as every reader sees it (sharing nothing with the row). */
export function eventOf(row: EventRow): JournalEvent {
  const body = JSON.parse(row.body) as Omit<NewEvent, 'kind' | 'at' | 'actor'>;
  return { grain: row.grain, seq: Number(row.seq), stream: row.stream, version: row.version, at: row.at, kind: row.kind, ...(row.actor === null ? {} : { actor: row.actor }), ...body };
}
