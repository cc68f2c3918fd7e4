/**
 * A grain of N Matters, fast, on either journal, with everything the
 * population reads kept as the service keeps it (issue 36's bench rows):
 *
 * 1. Template Matters are run through the real engine on an in-memory
 *    journal, each in a grain of its own, walked to different states (intake,
 *    prepare, review, waiting on a Signer, needing the Client's direction,
 *    fulfilled, withdrawn, and one whose ladder crossed its notice rung with an
 *    owner named): their grain's events, the snapshot rows of their Matter and
 *    ladder (with their standing) and their grain's ledger and transition
 *    counts, as the memory journal kept them from the engine's own writes.
 * 2. The journal is created by its adapter (every table, index and
 *    migration of this build) and an API key issued through the real `Keys`
 *    service: the Matters are that key's top-level records.
 * 3. Copies of the templates, taken in turn, under fresh ids (each id a
 *    template minted replaced throughout, as `bench/restart.ts` copies) are
 *    bulk-loaded: each copy's events at consecutive seqs after the grain's
 *    head, its rows with their entering seq moved by the same offset, and the
 *    grain's ledger and counts the sums of the copies'. Secondary indexes are
 *    dropped for the load and built again after it from their own definitions.
 *
 * What lands is row for row what the service's own appends would have
 * written for the same commits (only the instants repeat across copies), so a
 * service started on it finds the population sound and reads it, and a page
 * of GET /matters reads the same heads and rows. One thing differs by build:
 * a row's machine tag hashes the machine's code as the running build has it
 * (`snapshotMachine`), and the service runs from its esbuild bundle while
 * this process runs the sources through tsx. So the tags are the service's,
 * learnt from the rows a service of that build writes (`serviceTags`).
 */
import { join } from 'node:path';
import pg from 'pg';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { newId } from '../../src/domain/ids.ts';
import { createServices } from '../../src/compose.ts';
import { ownGrainOf } from '../../src/engine/grains.ts';
import { KINDS, shapeOf } from '../../src/engine/population.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { Database } from '../../src/journal/sqlite-driver.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { OUTBOX_GRAIN } from '../../src/engine/outbox.ts';
import type { JournalEvent, JournalStore } from '../../src/journal/store.ts';
import { removeDir, spawnService, tempDataDir } from './service.ts';
import { fill, IdPatterns, type Pattern } from './id-pattern.ts';

/** A text with the ids a template minted cut out: literal pieces, and between them the index of the id that goes there. */

interface Template {
  name: string;
  events: Array<{ seq: number; stream: Pattern; version: number; at: string; kind: string; actor: string | null; body: Pattern }>;
  /** The outbox's delivery records of its intents (its Gigs posted): without them a service started on the copies would post every Gig again. */
  delivered: Array<{ stream: Pattern; version: number; at: string; kind: string; actor: string | null; body: Pattern }>;
  rows: Array<{ stream: Pattern; version: number; machine: string; state: Pattern; path: string; facets: number; sinceSeq: number; since: string }>;
  counts: Array<{ machine: string; streams: number; events: number; transitions: number; edges: Array<[string, number]> }>;
  prefixes: string[];
}

const ID = /\b(?:mt|as|gig|cl|doc|en)_[0-9a-z]{20,40}\b/g;

/** The walks the templates take: matter type, Client, advances, then what else is done to the Matter or its ladder. */
const WALKS: Array<{ name: string; client?: string; advances: number; then?: 'withdraw' | 'ladder' }> = [
  { name: 'intake', advances: 0 },
  { name: 'prepare', advances: 1 },
  { name: 'review', advances: 3 },
  { name: 'waiting on a Signer', advances: 4 },
  { name: 'needs the Client\'s direction', client: FIXTURE.decliningClient, advances: 4 },
  { name: 'fulfilled', client: FIXTURE.fulfillingClient, advances: 5 },
  { name: 'withdrawn', advances: 2, then: 'withdraw' },
  { name: 'ladder past its notice rung, owner named', advances: 3, then: 'ladder' },
];

/**
 * The machine tags the service's build writes its rows under, by machine id:
 * a service spawned on a scratch directory opens one Matter (with its ladder),
 * and its rows say.
 */
export async function serviceTags(): Promise<Map<string, string>> {
  const dir = tempDataDir('legalwork-tags-');
  try {
    const service = await spawnService(dir);
    try {
      const ws = ((await (await fetch(`${service.url}/workspaces`, { method: 'POST' })).json()) as { workspace: { id: string } }).workspace.id;
      const opened = await fetch(`${service.url}/workspaces/${ws}/matters`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ matterType: 'patent_provisional' }) });
      if (opened.status !== 201) throw new Error(`the service answered ${opened.status} to a Matter's opening`);
    } finally {
      await service.stop();
    }
    const db = new Database(join(dir, 'journal.db'), { readonly: true });
    const tags = db.prepare('SELECT DISTINCT machine FROM snapshots').pluck().all() as string[];
    db.close();
    return new Map(tags.map((tag) => [tag.slice(0, tag.indexOf('@')), tag]));
  } finally {
    removeDir(dir);
  }
}

/** Runs each walk through the real engine, each in a grain of its own, and keeps what the journal kept of it, under the service's tags. */
export async function populationTemplates(tags: Map<string, string>): Promise<Template[]> {
  const journal = new MemoryJournal();
  const services = createServices({ journal });
  const out: Template[] = [];
  for (const [i, walk] of WALKS.entries()) {
    const grain = `ws_populationbench${i}`;
    const matter = await services.matters.create(grain, { matterType: 'patent_provisional', listFeeUsd: 199, clientState: 'CA', asset: { title: 'A widget' }, ...(walk.client ? { client: { name: walk.client } } : {}) } as never);
    for (let k = 0; k < walk.advances; k++) await services.matters.advance(grain, matter.id, { note: 'advanced by the population benchmark' });
    const assetId = (matter.opened.data as { assetId: string }).assetId;
    if (walk.then === 'withdraw') await services.matters.terminal(grain, matter.id, { outcome: 'withdrawn', byClient: true });
    if (walk.then === 'ladder') {
      await services.ladders.tick(grain, assetId, 340);
      await services.ladders.monitor(grain, assetId, 'platform');
    }
    out.push(await templateOf(journal, walk.name, grain, tags));
  }
  return out;
}

async function templateOf(journal: JournalStore, name: string, grain: string, tags: Map<string, string>): Promise<Template> {
  const serviceTag = (tag: string) => {
    const theirs = tags.get(tag.slice(0, tag.indexOf('@')));
    if (!theirs) throw new Error(`the service wrote no row of ${tag}'s machine`);
    return theirs;
  };
  const { pattern, prefixes } = new IdPatterns(ID);
  const events = await journal.readTail(grain, { after: 0, limit: 10_000, feed: 'timeline' });
  const streams = [...new Set(events.map((e) => e.stream))];
  const rows: Template['rows'] = [];
  for (const stream of streams) {
    const row = await journal.readSnapshot(stream);
    if (!row?.standing || !('seq' in row.standing.entered)) continue;
    rows.push({ stream: pattern(stream), version: row.version, machine: serviceTag(row.machine), state: pattern(row.state), path: row.standing.path, facets: row.standing.facets, sinceSeq: row.standing.entered.seq, since: row.standing.entered.at });
  }
  const counts: Template['counts'] = [];
  for (const kind of ['matter', 'deadline-ladder'] as const) {
    const { machine } = shapeOf(KINDS[kind].definition);
    const read = await journal.population(grain, machine);
    if (read.ledger) counts.push({ machine: serviceTag(machine.tag), ...read.ledger, edges: read.transitions.map((t) => [t.edge, t.count]) });
  }
  const columns = (e: JournalEvent) => {
    const { kind, at, actor, grain: _g, seq: _s, stream, version, ...rest } = e;
    return { stream: pattern(stream), version, at, kind, actor: actor ?? null, body: pattern(JSON.stringify(rest)) };
  };
  const records = await journal.readTail(OUTBOX_GRAIN, { after: 0, limit: 10_000, feed: 'timeline' });
  return {
    name,
    events: events.map((e) => ({ seq: e.seq, ...columns(e) })),
    delivered: records.filter((r) => (r.data.intent as { grain?: string } | undefined)?.grain === grain).map(columns),
    rows,
    counts,
    prefixes,
  };
}

/** Rows as the adapters' columns: events (`EVENT_COLUMNS`) and snapshots (`SNAPSHOT_COLUMNS`). */
export type EventColumns = [grain: string, seq: number, stream: string, version: number, at: string, kind: string, actor: string | null, body: string];
export type SnapshotColumns = [stream: string, version: number, machine: string, state: string, grain: string, path: string, facets: number, sinceSeq: number, since: string];

/** What a bulk loader takes: rows a chunk at a time, then the counts. */
interface Loader {
  rows(events: EventColumns[], snapshots: SnapshotColumns[]): Promise<void>;
  /** The last seq of each grain written (the Matters', the outbox's), and the population counts. */
  finish(grain: string, heads: Map<string, number>, counts: Map<string, { streams: number; events: number; transitions: number; edges: Map<string, number> }>): Promise<void>;
}

/** Rows per chunk handed to a loader. */
const CHUNK = 20_000;

/** Copies the templates into `grain` through the loader until it holds `matters` Matters. */
async function copy(templates: Template[], matters: number, grain: string, loader: Loader): Promise<{ events: number; streams: Array<{ id: string; template: string }> }> {
  let head = 0;
  /** The outbox grain's seq: the service's own records of it (none in a new journal) come first. */
  let outbox = 0;
  let events: EventColumns[] = [];
  let snapshots: SnapshotColumns[] = [];
  const counts = new Map<string, { streams: number; events: number; transitions: number; edges: Map<string, number> }>();
  for (const t of templates) {
    for (const c of t.counts) {
      const sum = counts.get(c.machine) ?? { streams: 0, events: 0, transitions: 0, edges: new Map<string, number>() };
      counts.set(c.machine, sum);
    }
  }
  const samples: Array<{ id: string; template: string }> = [];
  for (let n = 0; n < matters; n++) {
    const t = templates[n % templates.length];
    const ids = t.prefixes.map((prefix) => newId(prefix as never));
    const base = head;
    for (const e of t.events) events.push([grain, base + e.seq, fill(e.stream, ids), e.version, e.at, e.kind, e.actor, fill(e.body, ids)]);
    head = base + t.events[t.events.length - 1].seq;
    for (const r of t.delivered) events.push([OUTBOX_GRAIN, ++outbox, fill(r.stream, ids), r.version, r.at, r.kind, r.actor, fill(r.body, ids)]);
    for (const r of t.rows) snapshots.push([fill(r.stream, ids), r.version, r.machine, fill(r.state, ids), grain, r.path, r.facets, base + r.sinceSeq, r.since]);
    for (const c of t.counts) {
      const sum = counts.get(c.machine)!;
      sum.streams += c.streams;
      sum.events += c.events;
      sum.transitions += c.transitions;
      for (const [edge, k] of c.edges) sum.edges.set(edge, (sum.edges.get(edge) ?? 0) + k);
    }
    if (n < templates.length) samples.push({ id: fill(t.events[0].stream, ids), template: t.name });
    if (events.length >= CHUNK) {
      await loader.rows(events, snapshots);
      events = [];
      snapshots = [];
    }
  }
  if (events.length) await loader.rows(events, snapshots);
  await loader.finish(grain, new Map([[grain, head], [OUTBOX_GRAIN, outbox]].filter(([, seq]) => (seq as number) > 0) as Array<[string, number]>), counts);
  return { events: head, streams: samples };
}

export interface FilledGrain {
  /** The API key whose grain holds the Matters. */
  key: string;
  grain: string;
  matters: number;
  events: number;
  seconds: number;
  /** The first copy of each template (its Matter's id, and the walk it copies). */
  samples: Array<{ id: string; template: string }>;
}

/** An API key issued through the real service on the journal, then the journal closed: the grain the Matters go in. */
async function issuedKey(journal: JournalStore): Promise<{ key: string; grain: string }> {
  try {
    const issued = await createServices({ journal }).keys.issue({ email: 'population@legalwork.test' });
    return { key: issued.key, grain: ownGrainOf(issued.record.id) };
  } finally {
    await journal.close();
  }
}

/** Fills the (new) SQLite journal in `dir` with `matters` Matters of one key. */
export async function fillSqlite(dir: string, matters: number, templates: Template[]): Promise<FilledGrain> {
  const started = performance.now();
  const { key, grain } = await issuedKey(new SqliteJournal(dir));
  const db = new Database(join(dir, 'journal.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('events', 'snapshots')").all() as Array<{ name: string; sql: string }>;
  for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
  const event = db.prepare('INSERT INTO events (grain, seq, stream, version, at, kind, actor, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const snapshot = db.prepare('INSERT INTO snapshots (stream, version, machine, state, grain, path, facets, since_seq, since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const chunk = db.transaction((events: EventColumns[], snapshots: SnapshotColumns[]) => {
    for (const r of events) event.run(...r);
    for (const r of snapshots) snapshot.run(...r);
  });
  try {
    const copied = await copy(templates, matters, grain, {
      rows: async (events, snapshots) => void chunk(events, snapshots),
      finish: async (g, _heads, counts) => {
        for (const { sql } of indexes) db.exec(sql);
        db.transaction(() => {
          for (const [machine, c] of counts) {
            db.prepare('INSERT INTO population_ledger (grain, machine, streams, events, transitions) VALUES (?, ?, ?, ?, ?)').run(g, machine, c.streams, c.events, c.transitions);
            for (const [edge, n] of c.edges) db.prepare('INSERT INTO transition_counts (grain, machine, edge, n) VALUES (?, ?, ?, ?)').run(g, machine, edge, n);
          }
        })();
        db.exec('ANALYZE');
      },
    });
    return { key, grain, matters, events: copied.events, seconds: (performance.now() - started) / 1000, samples: copied.streams };
  } finally {
    db.close();
  }
}

/** Columns sent as JSON arrays, one a parameter, zipped back into rows (as `postgres-fill.ts` loads events). */
const zipped = (table: string, columns: string[], types: string[]) =>
  `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.map((c, i) => `${c}::${types[i]}`).join(', ')} FROM ROWS FROM (${columns.map((_, i) => `json_array_elements_text($${i + 1}::json)`).join(', ')}) AS r (${columns.join(', ')})`;
const EVENTS_INSERT = zipped('events', ['grain', 'seq', 'stream', 'version', 'at', 'kind', 'actor', 'body'], ['text', 'bigint', 'text', 'integer', 'text', 'text', 'text', 'text']);
const SNAPSHOTS_INSERT = zipped('snapshots', ['stream', 'version', 'machine', 'state', 'grain', 'path', 'facets', 'since_seq', 'since'], ['text', 'integer', 'text', 'text', 'text', 'text', 'integer', 'bigint', 'text']);
const columnsOf = (rows: unknown[][], width: number) => Array.from({ length: width }, (_, i) => JSON.stringify(rows.map((r) => r[i])));

/** Fills the (new) PostgreSQL journal in `schema` with `matters` Matters of one key. */
export async function fillPostgres(url: string, schema: string, matters: number, templates: Template[]): Promise<FilledGrain> {
  const started = performance.now();
  const { key, grain } = await issuedKey(await PostgresJournal.connect({ url, schema }));
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema} -c synchronous_commit=off -c maintenance_work_mem=256MB` });
  try {
    // The secondary indexes are built once after the load (a sort each), from their own definitions.
    const { rows: indexes } = await pool.query<{ name: string; definition: string }>(
      `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid IN ('events'::regclass, 'snapshots'::regclass) AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = i.indexrelid)`,
    );
    for (const { name } of indexes) await pool.query(`DROP INDEX ${pg.escapeIdentifier(name)}`);
    const copied = await copy(templates, matters, grain, {
      rows: async (events, snapshots) => {
        await Promise.all([pool.query(EVENTS_INSERT, columnsOf(events, 8)), pool.query(SNAPSHOTS_INSERT, columnsOf(snapshots, 9))]);
      },
      finish: async (g, heads, counts) => {
        for (const { definition } of indexes) await pool.query(definition);
        for (const [name, seq] of heads) await pool.query('INSERT INTO grain_heads (grain, seq) VALUES ($1, $2) ON CONFLICT (grain) DO UPDATE SET seq = excluded.seq', [name, seq]);
        for (const [machine, c] of counts) {
          await pool.query('INSERT INTO population_ledger (grain, machine, streams, events, transitions) VALUES ($1, $2, $3, $4, $5)', [g, machine, c.streams, c.events, c.transitions]);
          for (const [edge, n] of c.edges) await pool.query('INSERT INTO transition_counts (grain, machine, edge, n) VALUES ($1, $2, $3, $4)', [g, machine, edge, n]);
        }
        // As autovacuum would soon after a load like this: statistics, and the visibility map an index-only scan reads.
        await pool.query('VACUUM ANALYZE snapshots');
        await pool.query('ANALYZE events');
      },
    });
    return { key, grain, matters, events: copied.events, seconds: (performance.now() - started) / 1000, samples: copied.streams };
  } finally {
    await pool.end();
  }
}
