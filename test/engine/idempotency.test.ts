/**
 * Idempotency records in the engine (`src/engine/idempotency.ts`): the claim
 * rides in the command's own transaction, so what a restart finds is always
 * one of three things (nothing, the claim alone, the claim and its answer),
 * and each is answered as decisions.md says. Two services over one journal
 * stand for two processes.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/compose.ts';
import { fingerprintOf, IDEMPOTENCY_GRAIN, KEEP_MS, type Claim } from '../../src/engine/idempotency.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import type { AdvanceResult } from '../../src/engine/matters.ts';

const GRAIN = 'ws_idempotencytest000000000';
const answer = (status: number, payload = '{"result":"OK"}') => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, payload });

/** A service over `journal` whose wall clock the test moves. */
function service(journal: MemoryJournal, clock = { now: Date.parse('2026-11-25T12:00:00Z') }) {
  return { ...createServices({ journal, sandboxNow: () => clock.now }), clock };
}

async function claimed(s: ReturnType<typeof service>, key: string, fingerprint = fingerprintOf('POST', '/matters', { matterType: 'patent_provisional' })): Promise<Claim> {
  const begun = await s.idempotency.begin(`grain:${GRAIN}`, key, fingerprint);
  if (!('claim' in begun)) throw new Error('expected a claim');
  return begun.claim;
}

const refusalOf = async (work: Promise<unknown>): Promise<Refusal> => {
  try {
    await work;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('idempotency records', () => {
  it('journal the claim in the command\'s own transaction, and hand back only the command\'s events', async () => {
    const journal = new MemoryJournal();
    const s = service(journal);
    const claim = await claimed(s, 'k1');
    const entity = await s.idempotency.run(claim, () => s.matters.create(GRAIN, { matterType: 'patent_provisional' }));
    const [record] = await journal.readTail(IDEMPOTENCY_GRAIN, { after: 0, limit: 10, feed: 'timeline' });
    expect(record).toMatchObject({ kind: 'idempotency.claimed', grain: IDEMPOTENCY_GRAIN, version: 1 });
    expect(record.data.wrote).toContain(entity.id);
    // The command's grain holds its own facts only.
    const tail = await journal.readTail(GRAIN, { after: 0, limit: 100, feed: 'timeline' });
    expect(tail.every((e) => !e.kind.startsWith('idempotency.'))).toBe(true);
    await s.idempotency.settle(claim, answer(201));
    expect((await journal.readStream(record.stream)).map((e) => e.kind)).toEqual(['idempotency.claimed', 'idempotency.answered']);
  });

  it('after a restart: a claim and its answer replay; a claim alone is ANSWER_LOST naming what it wrote; nothing at all runs again', async () => {
    const journal = new MemoryJournal();
    const before = service(journal);
    const answered = await claimed(before, 'answered');
    await before.idempotency.run(answered, () => before.matters.create(GRAIN, { matterType: 'patent_provisional' }));
    await before.idempotency.settle(answered, answer(201, '{"the":"first answer"}'));
    const lost = await claimed(before, 'lost');
    const entity = await before.idempotency.run(lost, () => before.matters.create(GRAIN, { matterType: 'patent_provisional' }));
    // The process stops here: the claim committed with its command, the answer never did.
    await claimed(before, 'never-committed');

    const after = service(journal);
    const fingerprint = fingerprintOf('POST', '/matters', { matterType: 'patent_provisional' });
    expect(await after.idempotency.begin(`grain:${GRAIN}`, 'answered', fingerprint)).toEqual({ replay: answer(201, '{"the":"first answer"}') });
    const refused = await refusalOf(after.idempotency.begin(`grain:${GRAIN}`, 'lost', fingerprint));
    expect(refused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_ANSWER_LOST' });
    expect(refused.extra.wrote).toContain(entity.id);
    expect(refused.message).toMatch(/committed at .* not run again/);
    expect('claim' in (await after.idempotency.begin(`grain:${GRAIN}`, 'never-committed', fingerprint))).toBe(true);
  });

  it('keep 2xx and 4xx answers, not 5xx: after a 5xx that wrote nothing the retry runs again; after one that committed, the claim stands alone', async () => {
    const s = service(new MemoryJournal());
    const fingerprint = fingerprintOf('POST', '/x', {});
    const failed = await claimed(s, 'failed', fingerprint);
    await s.idempotency.settle(failed, answer(500));
    expect('claim' in (await s.idempotency.begin(`grain:${GRAIN}`, 'failed', fingerprint))).toBe(true);

    const refused = await claimed(s, 'refused', fingerprint);
    await s.idempotency.settle(refused, answer(409, '{"code":"STATE_REFUSES"}'));
    expect(await s.idempotency.begin(`grain:${GRAIN}`, 'refused', fingerprint)).toEqual({ replay: answer(409, '{"code":"STATE_REFUSES"}') });

    const partial = await claimed(s, 'partial', fingerprint);
    await s.idempotency.run(partial, () => s.matters.create(GRAIN, { matterType: 'patent_provisional' }));
    await s.idempotency.settle(partial, answer(500));
    expect(await refusalOf(s.idempotency.begin(`grain:${GRAIN}`, 'partial', fingerprint))).toMatchObject({ code: 'IDEMPOTENCY_ANSWER_LOST' });
  });

  it('are kept 24 hours: afterwards the key names a new request, recorded after the old one on the same stream', async () => {
    const journal = new MemoryJournal();
    const s = service(journal);
    const first = await claimed(s, 'daily', fingerprintOf('POST', '/a', {}));
    await s.idempotency.settle(first, answer(200));
    expect(await refusalOf(s.idempotency.begin(`grain:${GRAIN}`, 'daily', fingerprintOf('POST', '/b', {})))).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    s.clock.now += KEEP_MS + 1;
    const next = await claimed(s, 'daily', fingerprintOf('POST', '/b', {}));
    expect(next.version).toBe(1);
    await s.idempotency.settle(next, answer(201));
    expect(await s.idempotency.begin(`grain:${GRAIN}`, 'daily', fingerprintOf('POST', '/b', {}))).toEqual({ replay: answer(201) });
  });

  it('let exactly one of two processes run a key: the other\'s command fails on the claim, writing nothing, and answers IN_USE', async () => {
    const journal = new MemoryJournal();
    const one = service(journal);
    const two = service(journal);
    const a = await claimed(one, 'raced');
    const b = await claimed(two, 'raced');
    await one.idempotency.run(a, () => one.matters.create(GRAIN, { matterType: 'patent_provisional' }));
    const seq = await journal.latestSeq(GRAIN);
    const refused = await refusalOf(two.idempotency.run(b, () => two.matters.create(GRAIN, { matterType: 'patent_provisional' })));
    expect(refused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(await journal.latestSeq(GRAIN)).toBe(seq);
  });

  it('never join bookkeeping: a key\'s spend reservation before the command is not the command', async () => {
    const journal = new MemoryJournal();
    const s = service(journal);
    const { record } = await s.keys.issue({ email: 'a@b.test', spendCeilingUsd: 1000 });
    const claim = await claimed(s, 'paid');
    const entity = await s.idempotency.run(claim, async () => {
      await s.keys.reserve(record, 'req-1', 199, 'POST /matters');
      return s.matters.create(GRAIN, { matterType: 'patent_provisional' });
    });
    const [claimRecord] = await journal.readTail(IDEMPOTENCY_GRAIN, { after: 0, limit: 1, feed: 'timeline' });
    expect(claimRecord.data.wrote).toContain(entity.id);
    expect(claimRecord.data.wrote).not.toContain(record.owner.stream);
  });

  it('keep an answer said before the commit in the command\'s own transaction: one record row, replayed after a stop before the reply', async () => {
    const journal = new MemoryJournal();
    const before = service(journal);
    const matter = await before.matters.create(GRAIN, { matterType: 'patent_provisional' });
    const fingerprint = fingerprintOf('POST', `/matters/${matter.id}/advance`, {});
    const claim = await claimed(before, 'ahead', fingerprint);
    // What the HTTP layer renders (`http/answer-ahead.ts`): here, the stage the advance says it committed and the version it says the Matter is at.
    claim.render = (value) => answer(200, JSON.stringify({ stage: (value as AdvanceResult).committed?.advanceTo, version: (value as AdvanceResult).entity.version }));
    const seq = await journal.latestSeq(IDEMPOTENCY_GRAIN);
    const result = await before.idempotency.run(claim, () => before.matters.advance(GRAIN, matter.id));
    const said = answer(200, JSON.stringify({ stage: result.committed?.advanceTo, version: result.entity.version }));
    // Said ahead, it is what the committed Matter answers.
    expect(claim.answer).toEqual(said);
    const records = await journal.readTail(IDEMPOTENCY_GRAIN, { after: seq, limit: 10, feed: 'timeline' });
    expect(records.map((r) => r.kind)).toEqual(['idempotency.answered']);
    expect(records[0].data).toMatchObject({ fingerprint, wrote: [matter.id], answer: said });
    // The answer that left is the one kept: settling writes nothing more.
    await before.idempotency.settle(claim, said);
    expect(await journal.latestSeq(IDEMPOTENCY_GRAIN)).toBe(seq + 1);
    // Another process (or this one restarted) replays it, whether or not the reply ever left.
    const after = service(journal);
    expect(await after.idempotency.begin(`grain:${GRAIN}`, 'ahead', fingerprint)).toEqual({ replay: said });
  });

  it('keep the claim alone when the answer cannot be said before the commit (an escalation, a render that throws), and the answer after it', async () => {
    const journal = new MemoryJournal();
    const s = service(journal);
    const matter = await s.matters.create(GRAIN, { matterType: 'patent_provisional' });
    const fingerprint = fingerprintOf('POST', `/matters/${matter.id}/advance`, {});
    const throwing = await claimed(s, 'throws', fingerprint);
    throwing.render = () => {
      throw new Error('a render that fails');
    };
    const seq = await journal.latestSeq(IDEMPOTENCY_GRAIN);
    await s.idempotency.run(throwing, () => s.matters.advance(GRAIN, matter.id));
    expect(throwing.answer).toBeUndefined();
    expect((await journal.readTail(IDEMPOTENCY_GRAIN, { after: seq, limit: 10, feed: 'timeline' })).map((r) => r.kind)).toEqual(['idempotency.claimed']);
    // Two more stage commits, then the escalation (a Gig posted for `sign`): its answer is what the post brought.
    await s.matters.advance(GRAIN, matter.id);
    await s.matters.advance(GRAIN, matter.id);
    const escalation = await claimed(s, 'escalates', fingerprint);
    escalation.render = () => answer(200);
    const result = await s.idempotency.run(escalation, () => s.matters.advance(GRAIN, matter.id));
    expect(result.escalated).toBeDefined();
    expect(escalation.answer).toBeUndefined();
    await s.idempotency.settle(escalation, answer(200, '{"escalated":true}'));
    const records = await journal.readTail(IDEMPOTENCY_GRAIN, { after: seq + 1, limit: 10, feed: 'timeline' });
    expect(records.map((r) => r.kind)).toEqual(['idempotency.claimed', 'idempotency.answered']);
  });

  it('take nothing of a create whose record\'s completion throws: the append is refused whole', async () => {
    const journal = new MemoryJournal();
    const seq = await journal.latestSeq(GRAIN);
    const completes = () => {
      throw new Error('no');
    };
    await expect(journal.append(GRAIN, [{ stream: 'mt_x', expectedVersion: 0, events: [{ kind: 'matter.opened', at: '2026-11-25T12:00:00.000Z', subject: 'mt_x', summary: '', data: {} }] }, { stream: 'idempotency:x', grain: IDEMPOTENCY_GRAIN, expectedVersion: 0, events: [], completes }])).rejects.toThrow('no');
    expect(await journal.latestSeq(GRAIN)).toBe(seq);
    expect(await journal.readStream('mt_x')).toEqual([]);
  });
});
