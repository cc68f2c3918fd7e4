/**
 * A journal event as the SQL adapters (SQLite, PostgreSQL) store it: the
 * columns they index (grain, seq, stream, version, at, kind, actor) and the
 * rest of the event as one JSON text. Written once for both, so an event
 * reads back the same from either.
 */
import type { EntityHead, JournalEvent, NewEvent, StreamWrite } from './store.ts';

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

/** An opening event's row joined with its stream's snapshot (the `s_` columns, null when it has none). */
export type HeadRow = EventRow & { s_version: number | null; s_machine: string | null; s_state: string | null };

/**
 * The select both SQL adapters read stream heads with; the caller adds its
 * WHERE. A snapshot is joined only when it reflects the stream's head: one
 * left behind (an append that wrote none, a rewrite that raced a commit) is
 * not current, and reads as none. The head's version is looked up only for
 * a stream that has a row (the subquery names `s`): a list of streams
 * without any (Assets) pays for no more than the probe of `snapshots`.
 */
export const HEAD_SELECT = 'SELECT e.*, s.version AS s_version, s.machine AS s_machine, s.state AS s_state FROM events e LEFT JOIN snapshots s ON s.stream = e.stream AND s.version = (SELECT max(x.version) FROM events x WHERE x.stream = s.stream)';

export const headOf = (row: HeadRow): EntityHead => ({
  opened: eventOf(row),
  snapshot: row.s_version === null ? null : { version: row.s_version, machine: row.s_machine!, state: row.s_state! },
});
