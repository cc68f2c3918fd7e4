/**
 * Two processes on one journal (issue 16, "many processes, one journal"):
 * each keeps its own actors, so one may hold a Matter another has moved. Its
 * append then meets a version conflict; the supervisor drops the stale actor,
 * rebuilds it from the journal and decides the command again, so every answer
 * is the one a serial order gives. Two services over one journal stand for
 * the two processes.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/compose.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { stageOf } from '../../src/domain/matter-view.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';

const GRAIN = 'ws_staleactorstest00000000000';

describe('a stale actor in one of two processes', () => {
  it('is rebuilt and the command decided again: an advance after the other process advanced moves on from where the journal stands', async () => {
    const journal = new MemoryJournal();
    const [a, b] = [createServices({ journal }), createServices({ journal })];
    const opened = await a.matters.create(GRAIN, { matterType: 'patent_provisional' });
    // B moves it; A's resident actor still stands in intake.
    await b.matters.advance(GRAIN, opened.id);
    const result = await a.matters.advance(GRAIN, opened.id);
    expect(result.committed?.advanceTo).toBe('examine');
    expect(stageOf(result.entity)).toBe('examine');
    expect((await journal.readStream(opened.id)).filter((e) => e.kind === 'stage').map((e) => e.verb)).toEqual(['prepare', 'examine']);
  });

  it('keeps If-Match exact across processes: a version read before the other process moved is 412', async () => {
    const journal = new MemoryJournal();
    const [a, b] = [createServices({ journal }), createServices({ journal })];
    const opened = await a.matters.create(GRAIN, { matterType: 'patent_provisional' });
    const readAt = opened.version;
    await b.matters.advance(GRAIN, opened.id);
    await expect(a.matters.advance(GRAIN, opened.id, {}, readAt)).rejects.toMatchObject({ code: 'VERSION_MISMATCH' });
  });

  it('gives the ten-advance race split across both exactly three commits, one escalation and six refusals', async () => {
    const journal = new MemoryJournal();
    const [a, b] = [createServices({ journal }), createServices({ journal })];
    const opened = await a.matters.create(GRAIN, { matterType: 'patent_provisional' });
    await b.matters.get(GRAIN, opened.id);
    const answers = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).matters.advance(GRAIN, opened.id)));
    const done = answers.filter((x): x is PromiseFulfilledResult<Awaited<ReturnType<typeof a.matters.advance>>> => x.status === 'fulfilled').map((x) => x.value);
    expect(done.filter((r) => r.committed)).toHaveLength(3);
    expect(done.filter((r) => r.escalated)).toHaveLength(1);
    const refused = answers.filter((x): x is PromiseRejectedResult => x.status === 'rejected').map((x) => x.reason);
    expect(refused).toHaveLength(6);
    for (const r of refused) expect(r, String(r)).toBeInstanceOf(Refusal);
    const stream = await journal.readStream(opened.id);
    expect(stream.filter((e) => e.kind === 'stage').map((e) => e.verb)).toEqual(['prepare', 'examine', 'review']);
    expect(stream.filter((e) => e.kind === 'gig.posted')).toHaveLength(1);
  });
});
