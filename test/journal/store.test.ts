import { Database } from '../../src/journal/sqlite-driver.ts';
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { VersionConflict, type JournalStore, type NewEvent } from '../../src/journal/store.ts';
import { PostgresJournal, SCHEMA_VERSION } from '../../src/journal/postgres.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import pg from 'pg';
import { tempDir } from '../helpers/app.ts';

const event = (kind: string, actor?: string): NewEvent => ({ kind, at: '2026-01-01T00:00:00.000Z', subject: 's', summary: kind, data: { n: 1 }, ...(actor ? { actor } : {}) });

const dirs: string[] = [];
const schemas: string[] = [];
afterEach(async () => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
  while (schemas.length) await dropSchema(schemas.pop()!);
});

/** A PostgreSQL journal in a schema of its own, dropped after the test. */
async function postgresJournal(): Promise<PostgresJournal> {
  const schema = freshSchema();
  schemas.push(schema);
  return PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
}

const adapters: Array<[string, () => JournalStore | Promise<JournalStore>]> = [
  ['memory', () => new MemoryJournal()],
  ['postgres', postgresJournal],
  [
    'sqlite',
    () => {
      const dir = tempDir();
      dirs.push(dir);
      return new SqliteJournal(dir);
    },
  ],
];

describe.each(adapters)('the %s journal', (_name, make) => {
  it('appends with per-grain seq and per-stream version, and reads them back', async () => {
    const j = await make();
    const first = await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x'), event('y')] }, { stream: 'b', expectedVersion: 0, events: [event('z')] }]);
    expect(first.map((e) => [e.stream, e.seq, e.version])).toEqual([['a', 1, 1], ['a', 2, 2], ['b', 3, 1]]);
    await j.append('other', [{ stream: 'c', expectedVersion: 0, events: [event('x')] }]);
    expect((await j.readStream('a')).map((e) => e.kind)).toEqual(['x', 'y']);
    expect(await j.latestSeq('g')).toBe(3);
    expect(await j.latestSeq('other')).toBe(1);
    expect((await j.readTail('g', { after: 1, limit: 10, feed: 'timeline' })).map((e) => e.seq)).toEqual([2, 3]);
    await j.close();
  });

  it('lets a write name its own grain: its events join that grain\'s tail and seq, in the same all-or-none append', async () => {
    const j = await make();
    await j.append('side', [{ stream: 's0', expectedVersion: 0, events: [event('x')] }]);
    const written = await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x'), event('y')] }, { stream: 'rec', grain: 'side', expectedVersion: 0, events: [event('r')] }]);
    expect(written.map((e) => [e.grain, e.stream, e.seq, e.version])).toEqual([['g', 'a', 1, 1], ['g', 'a', 2, 2], ['side', 'rec', 2, 1]]);
    expect((await j.readTail('g', { after: 0, limit: 10, feed: 'timeline' })).map((e) => e.stream)).toEqual(['a', 'a']);
    expect((await j.readTail('side', { after: 0, limit: 10, feed: 'timeline' })).map((e) => e.stream)).toEqual(['s0', 'rec']);
    // A conflict on the side write refuses the whole append.
    await expect(j.append('g', [{ stream: 'a', expectedVersion: 2, events: [event('z')] }, { stream: 'rec', grain: 'side', expectedVersion: 0, events: [event('r')] }])).rejects.toBeInstanceOf(VersionConflict);
    expect([await j.latestSeq('g'), await j.latestSeq('side'), await j.streamVersion('a')]).toEqual([2, 2, 2]);
    await j.close();
  });

  it("knows each stream's version: the expected version of its next append", async () => {
    const j = await make();
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x'), event('y')] }]);
    await j.append('other', [{ stream: 'b', expectedVersion: 0, events: [event('z')] }]);
    expect([await j.streamVersion('a'), await j.streamVersion('b'), await j.streamVersion('never')]).toEqual([2, 1, 0]);
    await expect(j.append('g', [{ stream: 'a', expectedVersion: await j.streamVersion('a'), events: [event('w')] }])).resolves.toHaveLength(1);
    await j.close();
  });

  it('holds the next append to the version a stream reached, however its reads and appends interleave', async () => {
    const j = await make();
    // Read before the append is staged, while it is being committed, and after: each read is of the stream as it stood.
    const before = j.readStream('a');
    const appended = j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x'), event('y')] }]);
    await new Promise((tick) => setImmediate(tick));
    const during = await j.readStream('a');
    await appended;
    expect((await before).length).toBe(0);
    expect([0, 2]).toContain(during.length);
    expect(await j.readStream('a')).toHaveLength(2);
    // A read of a stream that does not exist yet, then its first append, then one that expects what the first made.
    expect(await j.readStream('b')).toEqual([]);
    await j.append('g', [{ stream: 'b', expectedVersion: 0, events: [event('z')] }]);
    await expect(j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('w')] }])).rejects.toBeInstanceOf(VersionConflict);
    await expect(j.append('g', [{ stream: 'b', expectedVersion: 0, events: [event('w')] }])).rejects.toBeInstanceOf(VersionConflict);
    await expect(j.append('g', [{ stream: 'a', expectedVersion: 2, events: [event('w')] }, { stream: 'b', expectedVersion: 1, events: [event('w')] }])).resolves.toHaveLength(2);
    await j.close();
  });

  it('refuses a stale expected version and writes nothing of that append', async () => {
    const j = await make();
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x')] }]);
    await expect(j.append('g', [{ stream: 'b', expectedVersion: 0, events: [event('y')] }, { stream: 'a', expectedVersion: 0, events: [event('z')] }])).rejects.toBeInstanceOf(VersionConflict);
    expect(await j.readStream('b')).toEqual([]);
    expect(await j.latestSeq('g')).toBe(1);
    await j.close();
  });

  it('filters the reminders and time feeds', async () => {
    const j = await make();
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('stage'), event('reminder.notice'), event('consent', 'client'), event('reminder.ack_missed')] }]);
    expect((await j.readTail('g', { after: 0, limit: 10, feed: 'reminders' })).map((e) => e.kind)).toEqual(['reminder.notice', 'reminder.ack_missed']);
    expect((await j.readTail('g', { after: 0, limit: 10, feed: 'time' })).map((e) => e.kind)).toEqual(['consent']);
    await j.close();
  });

  it('lists stream heads by opening kind', async () => {
    const j = await make();
    await j.append('g', [{ stream: 'm1', expectedVersion: 0, events: [event('matter.opened'), event('stage')] }]);
    await j.append('g', [{ stream: 'm2', expectedVersion: 0, events: [event('matter.opened')] }]);
    expect((await j.streamHeads('g', 'matter.opened', 0, 10)).map((h) => h.stream)).toEqual(['m1', 'm2']);
    expect((await j.entityHeads('g', 'matter.opened', 0, 10)).map((h) => h.opened.stream)).toEqual(['m1', 'm2']);
    expect(await j.countStreams('g', 'matter.opened')).toBe(2);
    await j.close();
  });

  it("keeps each stream's snapshot with the append that reaches it, and joins it to the stream's head only while it is current", async () => {
    const j = await make();
    const snap = (state: string) => ({ machine: 'm@1#h', state });
    await j.append('g', [{ stream: 'm1', expectedVersion: 0, events: [event('matter.opened')], snapshot: snap('one') }, { stream: 'plain', expectedVersion: 0, events: [event('x')] }]);
    expect(await j.readSnapshot('m1')).toEqual({ version: 1, machine: 'm@1#h', state: 'one' });
    expect(await j.readSnapshot('plain')).toBeNull();
    await j.append('g', [{ stream: 'm1', expectedVersion: 1, events: [event('stage'), event('reminder.x')], snapshot: snap('three') }]);
    expect(await j.readSnapshot('m1')).toEqual({ version: 3, machine: 'm@1#h', state: 'three' });
    expect(await j.readHead('m1')).toMatchObject({ opened: { stream: 'm1', version: 1, kind: 'matter.opened' }, snapshot: { version: 3, state: 'three' } });
    expect((await j.entityHeads('g', 'matter.opened', 0, 10)).map((h) => h.snapshot?.state)).toEqual(['three']);
    // A refused append writes no snapshot either.
    await expect(j.append('g', [{ stream: 'm1', expectedVersion: 1, events: [event('stage')], snapshot: snap('stale') }])).rejects.toBeInstanceOf(VersionConflict);
    expect((await j.readSnapshot('m1'))?.state).toBe('three');
    // An append that writes none leaves the row behind the stream's head: a head read no longer joins it.
    await j.append('g', [{ stream: 'm1', expectedVersion: 3, events: [event('stage')] }]);
    expect((await j.readSnapshot('m1'))?.version).toBe(3);
    expect((await j.readHead('m1'))?.snapshot).toBeNull();
    expect((await j.entityHeads('g', 'matter.opened', 0, 10))[0].snapshot).toBeNull();
    // A rewrite replaces the row, whatever machine wrote it...
    await j.putSnapshot('m1', { version: 4, machine: 'other', state: 'four' });
    expect((await j.readHead('m1'))?.snapshot).toEqual({ version: 4, machine: 'other', state: 'four' });
    await j.putSnapshot('m1', { version: 4, machine: 'm@1#h', state: 'four again' });
    expect((await j.readHead('m1'))?.snapshot).toEqual({ version: 4, machine: 'm@1#h', state: 'four again' });
    // ...but never with an older version than the row's, which the stream has reached: a rewrite racing a commit never takes the row back.
    await j.putSnapshot('m1', { version: 2, machine: 'm@1#h', state: 'older' });
    expect(await j.readSnapshot('m1')).toEqual({ version: 4, machine: 'm@1#h', state: 'four again' });
    // A row ahead of its stream is damage: any rewrite replaces it.
    await j.putSnapshot('m1', { version: 9, machine: 'm@1#h', state: 'ahead' });
    await j.putSnapshot('m1', { version: 2, machine: 'other', state: 'older' });
    expect(await j.readSnapshot('m1')).toEqual({ version: 2, machine: 'other', state: 'older' });
    expect(await j.readHead('nope')).toBeNull();
    await j.close();
  });

  it('answers a kept answer only while every stream it was built from stands where it says, and only of its build', async () => {
    const j = await make();
    await j.append('g', [{ stream: 'm1', expectedVersion: 0, events: [event('matter.opened')] }]);
    const row = { stream: 'm1', grain: 'g', tag: 'get@1', deps: [['m1', 1], ['l1', 0]] as Array<[string, number]>, etag: '"1.abc"', body: '{"type":"OK"}', item: '{"id":"m1"}' };
    await j.putAnswer(row);
    expect(await j.readAnswer('m1', 'get@1')).toEqual({ grain: 'g', etag: '"1.abc"', body: '{"type":"OK"}' });
    expect(await j.listItems('g', 'matter.opened', 'get@1', 0, 10)).toEqual([{ stream: 'm1', seq: 1, item: '{"id":"m1"}' }]);
    expect(await j.listItems('g', 'matter.opened', 'get@2', 0, 10)).toEqual([{ stream: 'm1', seq: 1, item: null }]);
    // Another build's answer has another shape: never sent.
    expect(await j.readAnswer('m1', 'get@2')).toBeNull();
    expect(await j.readAnswer('nope', 'get@1')).toBeNull();
    // A fact on any stream the answer read (here one that did not exist yet) makes it stale.
    await j.append('g', [{ stream: 'l1', expectedVersion: 0, events: [event('ladder.opened')] }]);
    expect(await j.readAnswer('m1', 'get@1')).toBeNull();
    // The list item depends on the record's own stream alone: still current.
    expect((await j.listItems('g', 'matter.opened', 'get@1', 0, 10))[0].item).toBe('{"id":"m1"}');
    await j.putAnswer({ ...row, deps: [['m1', 1], ['l1', 1]], body: '{"type":"OK","n":2}' });
    expect((await j.readAnswer('m1', 'get@1'))?.body).toBe('{"type":"OK","n":2}');
    await j.append('g', [{ stream: 'm1', expectedVersion: 1, events: [event('stage')] }]);
    expect(await j.readAnswer('m1', 'get@1')).toBeNull();
    expect((await j.listItems('g', 'matter.opened', 'get@1', 0, 10))[0].item).toBeNull();
    // A put built before a commit it raced writes nothing: the row is never replaced by an older answer.
    await j.putAnswer({ ...row, deps: [['m1', 2], ['l1', 1]], body: '{"n":3}' });
    await j.putAnswer({ ...row, deps: [['m1', 1], ['l1', 1]], body: '{"n":"older"}' });
    expect((await j.readAnswer('m1', 'get@1'))?.body).toBe('{"n":3}');
    // A page: the grain's streams of that opening kind in seq order, after the cursor, each with its item or null.
    await j.append('g', [{ stream: 'm2', expectedVersion: 0, events: [event('matter.opened')] }]);
    await j.append('other', [{ stream: 'm3', expectedVersion: 0, events: [event('matter.opened')] }]);
    expect((await j.listItems('g', 'matter.opened', 'get@1', 0, 10)).map((r) => [r.stream, r.item])).toEqual([['m1', '{"id":"m1"}'], ['m2', null]]);
    expect((await j.listItems('g', 'matter.opened', 'get@1', 1, 1)).map((r) => r.stream)).toEqual(['m2']);
    await j.close();
  });

  it('pages the intents of every grain in (grain, seq) order, and nothing else', async () => {
    const j = await make();
    for (const grain of ['g2', 'g1']) {
      await j.append(grain, [{ stream: `${grain}-m`, expectedVersion: 0, events: [event('stage'), event('gig.posted'), event('stage')] }]);
      await j.append(grain, [{ stream: `${grain}-act`, expectedVersion: 0, events: [event('capability.escalated')] }]);
    }
    const first = await j.readIntents(null, 3);
    expect(first.map((e) => [e.grain, e.seq, e.kind])).toEqual([['g1', 2, 'gig.posted'], ['g1', 4, 'capability.escalated'], ['g2', 2, 'gig.posted']]);
    const last = first[first.length - 1];
    expect((await j.readIntents({ grain: last.grain, seq: last.seq }, 3)).map((e) => [e.grain, e.seq])).toEqual([['g2', 4]]);
    await j.close();
  });

  it('keeps each grain tail gap-free and strictly increasing under concurrent appends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('g1', 'g2'), fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 30 }), async (ops) => {
        const j = await make();
        await Promise.all(ops.map(([grain, n], i) => j.append(grain, [{ stream: `s${i}`, expectedVersion: 0, events: Array.from({ length: n }, () => event('x')) }])));
        for (const grain of ['g1', 'g2']) {
          const seqs = (await j.readTail(grain, { after: 0, limit: 500, feed: 'timeline' })).map((e) => e.seq);
          expect(seqs).toEqual(seqs.map((_, i) => i + 1));
        }
        await j.close();
      }),
      { numRuns: 25 },
    );
  });
});

/** A kept answer whose bytes were damaged where they are stored (`damage`) reads as none, and the next put keeps it whole again. */
async function damagedAnswerReadsAsNone(j: JournalStore, damage: (sql: string) => Promise<unknown>) {
  await j.append('g', [{ stream: 'm1', expectedVersion: 0, events: [event('matter.opened')] }]);
  const row = { stream: 'm1', grain: 'g', tag: 't', deps: [['m1', 1]] as Array<[string, number]>, etag: '"1.x"', body: '{"type":"OK","matter":{"status":"open"}}', item: '{"status":"open"}' };
  await j.putAnswer(row);
  expect((await j.readAnswer('m1', 't'))?.body).toBe(row.body);
  expect((await j.listItems('g', 'matter.opened', 't', 0, 10))[0].item).toBe(row.item);
  // One byte changed, as a disk or a hand may: the checksum kept beside the bytes no longer holds.
  await damage(`UPDATE answers SET body = replace(body, 'open', 'shut'), item = replace(item, 'open', 'shut')`);
  expect(await j.readAnswer('m1', 't')).toBeNull();
  expect((await j.listItems('g', 'matter.opened', 't', 0, 10))[0].item).toBeNull();
  // Kept again whole, it is answered again.
  await j.putAnswer(row);
  expect((await j.readAnswer('m1', 't'))?.body).toBe(row.body);
}

describe('the SQLite journal', () => {
  it('never answers a kept answer whose bytes were damaged', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const j = new SqliteJournal(dir);
    const db = new Database(`${dir}/journal.db`);
    try {
      await damagedAnswerReadsAsNone(j, async (sql) => db.prepare(sql).run());
    } finally {
      db.close();
      await j.close();
    }
  });

  it('outdates a kept answer in the append that moves one of its streams, on a journal an earlier build wrote too', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = new SqliteJournal(dir);
    await a.append('g', [{ stream: 'm1', expectedVersion: 0, events: [event('matter.opened')] }, { stream: 'm2', expectedVersion: 0, events: [event('matter.opened')] }]);
    const row = (stream: string) => ({ stream, grain: 'g', tag: 't', deps: [[stream, 1], [`l-${stream}`, 0]] as Array<[string, number]>, etag: '"1.x"', body: `{"id":"${stream}"}`, item: `{"id":"${stream}"}` });
    await a.putAnswer(row('m1'));
    await a.putAnswer(row('m2'));
    await a.close();
    // As an earlier build left it: no record of the rows' streams, no triggers; its reads checked each stream's head.
    const raw = new Database(`${dir}/journal.db`);
    raw.exec('DROP TRIGGER answers_kept; DROP TRIGGER answers_rekept; DROP TRIGGER events_outdate_answers; DROP TABLE answer_deps; DROP TABLE answers_moved;');
    // m2's ladder moved while that build ran: its row stands outdated, and the read of it checks nothing.
    raw.prepare("INSERT INTO events (grain, seq, stream, version, kind, at, actor, body) SELECT 'g', 3, 'l-m2', 1, 'ladder.opened', at, NULL, body FROM events WHERE seq = 1").run();
    raw.close();
    const b = new SqliteJournal(dir);
    expect((await b.readAnswer('m1', 't'))?.body).toBe('{"id":"m1"}');
    expect(await b.readAnswer('m2', 't')).toBeNull();
    // The kept row's streams are known now: a fact on its ladder outdates its body (its item, of its own stream, stands)...
    await b.append('g', [{ stream: 'l-m1', expectedVersion: 0, events: [event('ladder.opened')] }]);
    expect(await b.readAnswer('m1', 't')).toBeNull();
    expect((await b.listItems('g', 'matter.opened', 't', 0, 10))[0].item).toBe('{"id":"m1"}');
    // ...kept again it is answered again, and a fact on its own stream drops it whole.
    await b.putAnswer({ ...row('m1'), deps: [['m1', 1], ['l-m1', 1]] });
    expect((await b.readAnswer('m1', 't'))?.body).toBe('{"id":"m1"}');
    await b.append('g', [{ stream: 'm1', expectedVersion: 1, events: [event('stage')] }]);
    expect(await b.readAnswer('m1', 't')).toBeNull();
    expect((await b.listItems('g', 'matter.opened', 't', 0, 10))[0].item).toBeNull();
    await b.close();
  });

  it('is append-only in the database itself: UPDATE and DELETE abort', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const j = new SqliteJournal(dir);
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x')] }]);
    await j.close();
    const db = new Database(`${dir}/journal.db`);
    expect(() => db.prepare("UPDATE events SET kind = 'y'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    db.close();
  });

  it('survives a reopen with the same contents and continues the sequences', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = new SqliteJournal(dir);
    await a.append('g', [{ stream: 's', expectedVersion: 0, events: [event('x'), event('y')] }]);
    await a.close();
    const b = new SqliteJournal(dir);
    expect((await b.readStream('s')).map((e) => e.kind)).toEqual(['x', 'y']);
    const [next] = await b.append('g', [{ stream: 's', expectedVersion: 2, events: [event('z')] }]);
    expect([next.seq, next.version]).toEqual([3, 3]);
    await b.close();
  });

  it('keeps checking expected versions and continuing seqs for streams and grains its bounded head cache forgot', async () => {
    const dir = tempDir();
    dirs.push(dir);
    // Room for two heads: every stream and grain below but the last two written is read back from the index.
    const j = new SqliteJournal(dir, 2);
    for (const n of [1, 2, 3, 4]) await j.append(`g${n % 2}`, [{ stream: `s${n}`, expectedVersion: 0, events: [event('x')] }]);
    for (const n of [1, 2, 3, 4]) {
      await expect(j.append(`g${n % 2}`, [{ stream: `s${n}`, expectedVersion: 0, events: [event('again')] }])).rejects.toBeInstanceOf(VersionConflict);
      const [next] = await j.append(`g${n % 2}`, [{ stream: `s${n}`, expectedVersion: 1, events: [event('y')] }]);
      expect(next.version).toBe(2);
    }
    for (const grain of ['g0', 'g1']) expect((await j.readTail(grain, { after: 0, limit: 10, feed: 'timeline' })).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    await j.close();
  });
});

describe('the PostgreSQL journal', () => {
  it('never answers a kept answer whose bytes were damaged', async () => {
    const j = await postgresJournal();
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      await db.query(`SET search_path TO ${pg.escapeIdentifier(schemas[schemas.length - 1])}`);
      await damagedAnswerReadsAsNone(j, (sql) => db.query(sql));
    } finally {
      await db.end();
      await j.close();
    }
  });

  it('is append-only in the database itself: UPDATE, DELETE and TRUNCATE abort', async () => {
    const j = await postgresJournal();
    await j.append('g', [{ stream: 'a', expectedVersion: 0, events: [event('x')] }]);
    await j.close();
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      await db.query(`SET search_path TO ${pg.escapeIdentifier(schemas[schemas.length - 1])}`);
      for (const sql of ["UPDATE events SET kind = 'y'", 'DELETE FROM events', 'TRUNCATE events']) await expect(db.query(sql), sql).rejects.toThrow(/append-only/);
      expect((await db.query('SELECT max(version) AS v FROM schema_version')).rows[0].v).toBe(SCHEMA_VERSION);
    } finally {
      await db.end();
    }
  });

  it('survives a reopen with the same contents and continues the sequences', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const a = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    await a.append('g', [{ stream: 's', expectedVersion: 0, events: [event('x'), event('y')] }]);
    await a.close();
    const b = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    expect((await b.readStream('s')).map((e) => e.kind)).toEqual(['x', 'y']);
    const [next] = await b.append('g', [{ stream: 's', expectedVersion: 2, events: [event('z')] }]);
    expect([next.seq, next.version]).toEqual([3, 3]);
    await b.close();
  });

  it('lets exactly one of two processes write a version; seqs stay gap-free per grain, and a tail read while both write never skips', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const [one, two] = await Promise.all([PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }), PostgresJournal.connect({ url: TEST_DATABASE_URL, schema })]);
    // The same expected version from both: one wins, the other is a VersionConflict and writes nothing.
    const raced = await Promise.allSettled([one.append('g', [{ stream: 'r', expectedVersion: 0, events: [event('a')] }]), two.append('g', [{ stream: 'r', expectedVersion: 0, events: [event('b')] }])]);
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((raced.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
    expect(await one.readStream('r')).toHaveLength(1);
    // Many writers in both processes, and a reader paging the tail as they write.
    const seen: number[] = [];
    let writing = true;
    const reader = (async () => {
      let after = 0;
      while (writing || after < (await one.latestSeq('g'))) {
        const page = await two.readTail('g', { after, limit: 7, feed: 'timeline' });
        for (const e of page) seen.push(e.seq);
        if (page.length) after = page[page.length - 1].seq;
      }
    })();
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).append('g', [{ stream: `w${i}`, expectedVersion: 0, events: [event('x'), event('y')] }])));
    writing = false;
    await reader;
    const total = await one.latestSeq('g');
    expect(total).toBe(81);
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    await Promise.all([one.close(), two.close()]);
  });
});
