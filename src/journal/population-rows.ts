/**
 * The population's rows and counts as the SQL adapters (SQLite, PostgreSQL)
 * keep them: written once for both, as `rows.ts` is for events.
 *
 * - Each entity stream's snapshot row carries where the entity stands as
 *   indexed columns: its grain, its state's dotted path, its facets and the
 *   seq and instant of the fact that entered that state (`Standing`), under
 *   `snapshots_population (grain, machine, path, since_seq)` with the version
 *   and facets beside them. A grain's population of one machine is one
 *   aggregate over that index, grouped by path, and the oldest of each state
 *   one probe of it; a state's streams, oldest first, one range of it.
 * - `population_ledger (grain, machine)`: streams opened, events appended to
 *   them, transitions taken; `transition_counts (grain, machine, edge)`: how
 *   many times each edge was taken. Both are added to by every entity write
 *   in its transaction, and are the checks on the rows: the row count must
 *   be the ledger's streams, the rows' versions sum to its events (no row
 *   behind or ahead of its stream), the edge counts to its transitions.
 *
 * Like the snapshot rows, all of it is a cache of the journal: the engine
 * (`src/engine/population.ts`) rebuilds a grain's whenever a check fails.
 */
import type { PopulationLedger, PopulationRows, SnapshotState, StreamInState, StreamSnapshot } from './store.ts';

/** The columns of a snapshot row, in the order its inserts name them. */
export const SNAPSHOT_COLUMNS = 'stream, version, machine, state, grain, path, facets, since_seq, since';

/** A snapshot row's values in `SNAPSHOT_COLUMNS` order: the standing's columns null when it has none (a row an earlier build would have written). */
export type SnapshotRow = [stream: string, version: number, machine: string, state: string, grain: string | null, path: string | null, facets: number | null, sinceSeq: number | null, since: string | null];

/**
 * The row of a stream's snapshot. `entered` is the fact that entered its
 * state as the journal placed it (an append resolves an `{event}` to its
 * seq and instant before the row is written).
 */
export function snapshotRow(stream: string, version: number, grain: string | null, snapshot: SnapshotState, entered: { seq: number; at: string } | null): SnapshotRow {
  const standing = snapshot.standing;
  const known = standing && entered;
  return [stream, version, snapshot.machine, snapshot.state, grain, known ? standing.path : null, known ? standing.facets : null, known ? entered.seq : null, known ? entered.at : null];
}

/** The fact a write's standing names as entering its state, once its events have their seqs (`written[i]` is event i's seq and instant). */
export function enteredOf(snapshot: SnapshotState, written: ReadonlyArray<{ seq: number; at: string }>): { seq: number; at: string } | null {
  const entered = snapshot.standing?.entered;
  if (!entered) return null;
  if ('event' in entered) return written[entered.event] ?? null;
  return entered;
}

/** A row read back (`version, machine, state, path, facets, since_seq, since`) as the snapshot it holds. */
export function snapshotOf(row: { version: number; machine: string; state: string; path: string | null; facets: number | null; since_seq: number | string | null; since: string | null }): StreamSnapshot {
  const { version, machine, state, path, facets, since_seq, since } = row;
  const standing = path !== null && facets !== null && since_seq !== null && since !== null ? { standing: { path, facets: Number(facets), entered: { seq: Number(since_seq), at: since } } } : {};
  return { version: Number(version), machine, state, ...standing };
}

/** The select a snapshot is read with (`snapshotOf`). */
export const SNAPSHOT_SELECT = 'SELECT version, machine, state, path, facets, since_seq, since FROM snapshots';

/**
 * The population of one machine in a grain, in one statement: the rows of
 * its tag grouped by path over `snapshots_population` (count, versions'
 * sum, least entering seq, each facet's count), each group joined with its
 * oldest row by that least seq. `p` writes a named parameter in the
 * adapter's syntax (`grain`, `tag`).
 */
export function populationSelect(p: (name: 'grain' | 'tag') => string, facets: number): string {
  const facetSums = Array.from({ length: facets }, (_, i) => `, sum((facets >> ${i}) & 1) AS f${i}`).join('');
  const facetColumns = Array.from({ length: facets }, (_, i) => `, g.f${i}`).join('');
  return `SELECT g.path, g.n, g.versions, o.stream, o.since_seq, o.since, o.state, o.version${facetColumns}
  FROM (SELECT path, count(*) AS n, sum(version) AS versions, min(since_seq) AS first${facetSums}
        FROM snapshots WHERE grain = ${p('grain')} AND machine = ${p('tag')} GROUP BY path) g
  LEFT JOIN snapshots o ON o.grain = ${p('grain')} AND o.machine = ${p('tag')} AND o.path = g.path AND o.since_seq = g.first
  ORDER BY g.path`;
}

/** A row of `populationSelect`, in its column order. */
export type PopulationRow = [path: string | null, n: number | string, versions: number | string | null, stream: string | null, sinceSeq: number | string | null, since: string | null, state: string | null, version: number | null, ...facets: Array<number | string | null>];

/** The columns of `populationSelect`, in `PopulationRow` order. */
export const populationColumns = (facets: number): string[] => ['path', 'n', 'versions', 'stream', 'since_seq', 'since', 'state', 'version', ...Array.from({ length: facets }, (_, i) => `f${i}`)];

/** The states of `PopulationRows` from the aggregate's rows (a path whose oldest row two rows share is read once). */
export function statesOf(rows: PopulationRow[]): PopulationRows['states'] {
  const states = new Map<string | null, PopulationRows['states'][number]>();
  for (const [path, n, versions, stream, sinceSeq, since, state, version, ...facets] of rows) {
    if (states.has(path)) continue;
    const oldest = stream !== null && sinceSeq !== null && since !== null && state !== null ? { stream, seq: Number(sinceSeq), at: since, state, version: Number(version) } : null;
    states.set(path, { path, count: Number(n), versions: Number(versions ?? 0), facets: facets.map((f) => Number(f ?? 0)), oldest });
  }
  return [...states.values()];
}

/** The ledger's select and its row. */
export const LEDGER_SELECT = 'SELECT streams, events, transitions FROM population_ledger';
export const ledgerOf = (row: { streams: number | string; events: number | string; transitions: number | string } | undefined): PopulationLedger | null =>
  row ? { streams: Number(row.streams), events: Number(row.events), transitions: Number(row.transitions) } : null;

/** A page of the streams in one state: `streams_in_state` reads `snapshots_population` from the seq after `after`. */
export const IN_STATE_SELECT = 'SELECT stream, since_seq, since, version, state FROM snapshots';
export const inStateOf = (row: { stream: string; since_seq: number | string; since: string; version: number; state: string }): StreamInState => ({ stream: row.stream, seq: Number(row.since_seq), at: row.since, version: Number(row.version), state: row.state });

/** One entity write's share of its grain's ledger and transition counts. */
export interface CountsDelta {
  grain: string;
  machine: string;
  streams: number;
  events: number;
  transitions: string[];
}

/** The edges of a write, each with how many times it was taken (one upsert each). */
export function edgeCounts(transitions: readonly string[]): Array<[edge: string, n: number]> {
  const counts = new Map<string, number>();
  for (const edge of transitions) counts.set(edge, (counts.get(edge) ?? 0) + 1);
  return [...counts];
}
