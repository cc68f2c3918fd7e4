/**
 * The population's rows and counts, as every journal keeps them (issue 36;
 * src/journal/population-rows.ts): the same contract on memory, SQLite and
 * PostgreSQL.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import type { Entered, JournalStore, NewEvent, PopulationMachine, SnapshotState } from '../../src/journal/store.ts';
import { tempDir } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const dirs: string[] = [];
const schemas: string[] = [];
afterEach(async () => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
  while (schemas.length) await dropSchema(schemas.pop()!);
});

const adapters: Array<[string, () => JournalStore | Promise<JournalStore>]> = [
  ['memory', () => new MemoryJournal()],
  ['sqlite', () => {
    const dir = tempDir();
    dirs.push(dir);
    return new SqliteJournal(dir);
  }],
  ['postgres', () => {
    const schema = freshSchema();
    schemas.push(schema);
    return PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
  }],
];

let clock = 0;
const event = (kind: string): NewEvent => ({ kind, at: new Date(Date.UTC(2026, 0, 1) + clock++ * 1000).toISOString(), subject: 's', summary: kind, data: {} });
const M: PopulationMachine = { tag: 'm@1#h', id: 'm', facets: 2 };
/** A snapshot at `path` showing `facets`, entered by the write's event `event` (or a fact journaled before). */
const at = (path: string, facets: number, entered: Entered): SnapshotState => ({ machine: M.tag, state: `{"${path}":true}`, standing: { path, facets, entered } });

describe.each(adapters)('the %s journal keeps the population', (_name, make) => {
  it('adds each entity write to its grain\'s ledger and counts, and reads its rows by state, with the oldest of each, as of one commit', async () => {
    const j = await make();
    // a: opened (a), then moved to b by its second event, staying there through a third.
    const [a1] = await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('m.opened')], snapshot: at('s.a', 0, { event: 0 }) }]);
    const moved = await j.append('g', [{ stream: 'a', expectedVersion: 1, events: [event('x'), event('y')], snapshot: at('s.b', 1, { event: 0 }), transitions: ['s.a X -> s.b', 's.b Y -> (stays)'] }]);
    // b: opened in s.a with both facets; c: opened in another grain, and a plain stream beside.
    await j.append('g', [{ stream: 'b', expectedVersion: 0, events: [event('m.opened')], snapshot: at('s.a', 3, { event: 0 }) }, { stream: 'plain', expectedVersion: 0, events: [event('p')] }]);
    await j.append('other', [{ stream: 'c', expectedVersion: 0, events: [event('m.opened')], snapshot: at('s.a', 0, { event: 0 }) }]);
    // A commit that does not move a: its entering fact stays the one journaled.
    await j.append('g', [{ stream: 'a', expectedVersion: 3, events: [event('z')], snapshot: at('s.b', 1, { seq: moved[0].seq, at: moved[0].at }), transitions: ['s.b Y -> (stays)'] }]);

    const read = await j.population('g', M);
    expect(read.ledger).toEqual({ streams: 2, events: 5, transitions: 3 });
    expect(read.transitions).toEqual([{ edge: 's.a X -> s.b', count: 1 }, { edge: 's.b Y -> (stays)', count: 2 }]);
    const byPath = Object.fromEntries(read.states.map((s) => [s.path, s]));
    expect(byPath['s.a']).toMatchObject({ count: 1, versions: 1, facets: [1, 1], oldest: { stream: 'b', version: 1 } });
    expect(byPath['s.b']).toMatchObject({ count: 1, versions: 4, facets: [1, 0], oldest: { stream: 'a', seq: moved[0].seq, at: moved[0].at, version: 4, state: '{"s.b":true}' } });
    expect(a1.seq).toBeLessThan(moved[0].seq);
    // Another tag, another grain: nothing.
    expect(await j.population('g', { ...M, tag: 'm@1#other' })).toEqual({ states: [], ledger: null, transitions: [] });
    expect((await j.population('other', M)).ledger).toEqual({ streams: 1, events: 1, transitions: 0 });
    // A refused append adds nothing.
    await expect(j.append('g', [{ stream: 'a', expectedVersion: 1, events: [event('x')], snapshot: at('s.c', 0, { event: 0 }), transitions: ['s.b X -> s.c'] }])).rejects.toThrow();
    expect((await j.population('g', M)).ledger).toEqual({ streams: 2, events: 5, transitions: 3 });
    await j.close();
  });

  it('pages a state\'s streams oldest first, by the seq that entered it', async () => {
    const j = await make();
    const entered: number[] = [];
    for (const s of ['p', 'q', 'r', 's']) entered.push((await j.append('g', [{ stream: s, expectedVersion: 0, events: [event('m.opened')], snapshot: at('s.a', 0, { event: 0 }) }]))[0].seq);
    // q moves on; then p re-enters s.a by a later fact, so it is now the newest there.
    await j.append('g', [{ stream: 'q', expectedVersion: 1, events: [event('x')], snapshot: at('s.b', 0, { event: 0 }), transitions: ['s.a X -> s.b'] }]);
    const [back] = await j.append('g', [{ stream: 'p', expectedVersion: 1, events: [event('x'), event('w')], snapshot: at('s.a', 0, { event: 1 }), transitions: ['s.a X -> s.b', 's.b W -> s.a'] }]);
    const first = await j.streamsInState('g', M.tag, 's.a', 0, 2);
    expect(first.map((r) => r.stream)).toEqual(['r', 's']);
    expect(first[0]).toMatchObject({ seq: entered[2], version: 1 });
    const rest = await j.streamsInState('g', M.tag, 's.a', first[1].seq, 2);
    expect(rest.map((r) => [r.stream, r.seq, r.version])).toEqual([['p', back.seq + 1, 3]]);
    expect(await j.streamsInState('g', M.tag, 's.b', 0, 10)).toHaveLength(1);
    expect(await j.streamsInState('g', 'm@1#other', 's.a', 0, 10)).toEqual([]);
    await j.close();
  });

  it('replaces a grain\'s counts (every build\'s) and removes other builds\' rows only while the grain is at the seq they were folded to', async () => {
    const j = await make();
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('m.opened')], snapshot: at('s.a', 0, { event: 0 }) }]);
    await j.append('g', [{ stream: 'old', expectedVersion: 0, events: [event('m.opened')], snapshot: { ...at('s.a', 0, { event: 0 }), machine: 'm@1#old' }, transitions: ['s.a X -> s.b'] }]);
    const seq = await j.latestSeq('g');
    const counts = { ledger: { streams: 2, events: 2, transitions: 1 }, transitions: [{ edge: 's.a X -> s.c', count: 1 }] };
    expect(await j.resetPopulation('g', M, seq - 1, counts)).toBe(false);
    expect((await j.population('g', M)).ledger).toEqual({ streams: 1, events: 1, transitions: 0 });
    expect(await j.resetPopulation('g', M, seq, counts)).toBe(true);
    const read = await j.population('g', M);
    expect(read.ledger).toEqual(counts.ledger);
    expect(read.transitions).toEqual(counts.transitions);
    expect((await j.population('g', { ...M, tag: 'm@1#old' })).ledger).toBeNull();
    // The other build's row is gone; today's stays.
    expect(await j.readSnapshot('old')).toBeNull();
    expect(await j.readSnapshot('a')).not.toBeNull();
    // Appends after the reset add to it.
    await j.append('g', [{ stream: 'a', expectedVersion: 1, events: [event('x')], snapshot: at('s.c', 0, { event: 0 }), transitions: ['s.a X -> s.c'] }]);
    expect((await j.population('g', M)).ledger).toEqual({ streams: 2, events: 3, transitions: 2 });
    // A grain with nothing written yet is at seq 0.
    expect(await j.resetPopulation('empty', M, 0, { ledger: { streams: 0, events: 0, transitions: 0 }, transitions: [] })).toBe(true);
    expect((await j.population('empty', M)).ledger).toEqual({ streams: 0, events: 0, transitions: 0 });
    await j.close();
  });

  it('keeps a rewritten row\'s standing, in its stream\'s grain, and reads it back', async () => {
    const j = await make();
    const [opened] = await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('m.opened')], snapshot: { machine: M.tag, state: '{}' } }]);
    // A row without a standing (as an earlier build wrote them) is in no state.
    expect((await j.population('g', M)).states).toMatchObject([{ path: null, count: 1, oldest: null }]);
    await j.putSnapshot('a', { version: 1, machine: M.tag, state: '{"s.a":true}', standing: { path: 's.a', facets: 2, entered: { seq: opened.seq, at: opened.at } } });
    expect(await j.readSnapshot('a')).toEqual({ version: 1, machine: M.tag, state: '{"s.a":true}', standing: { path: 's.a', facets: 2, entered: { seq: opened.seq, at: opened.at } } });
    expect((await j.population('g', M)).states).toMatchObject([{ path: 's.a', count: 1, facets: [0, 1], oldest: { stream: 'a', seq: opened.seq } }]);
    await j.close();
  });
});
