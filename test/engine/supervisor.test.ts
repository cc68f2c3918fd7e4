import { describe, expect, it, vi } from 'vitest';
import { createActor, transition, type AnyStateMachine } from 'xstate';
import { LADDER, ladderStreamOf } from '../../src/engine/ladders.ts';
import { Mailboxes } from '../../src/lib/mailboxes.ts';
import { DEFAULT_RESIDENT_ACTORS, residentActorsOf } from '../../src/engine/supervisor.ts';
import { Unreadable } from '../../src/engine/unreadable.ts';
import { createServices } from '../../src/compose.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { matterMachine } from '../../machines/matter.ts';
import { within } from '../helpers/wait.ts';

describe('mailboxes', () => {
  it('run work for one key strictly in arrival order, and other keys in parallel', async () => {
    const boxes = new Mailboxes();
    const log: string[] = [];
    // a1 holds its key until the test lets it go, which it does only once b1 has run: ordered by events, not timers.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const work = (key: string, tag: string, gate?: Promise<void>) =>
      boxes.run(key, async () => {
        log.push(`start ${tag}`);
        await gate;
        log.push(`end ${tag}`);
      });
    const a1 = work('a', 'a1', held);
    const a2 = work('a', 'a2');
    // Another key runs while a1 holds its own (were keys run one at a time, b1 would wait on a1 for ever).
    await within(work('b', 'b1'), 'b1 while a1 holds key a');
    expect(log).toEqual(['start a1', 'start b1', 'end b1']);
    expect(boxes.isBusy('a')).toBe(true);
    release();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
    expect(boxes.isBusy('a')).toBe(false);
  });

  it('keeps going after a failed piece of work', async () => {
    const boxes = new Mailboxes();
    await expect(boxes.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(boxes.run('k', async () => 'next')).resolves.toBe('next');
  });
});

describe('the supervisor', () => {
  it('passivates idle actors beyond its capacity and rebuilds them from the journal on touch', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal, residentActors: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await services.matters.create('g', { matterType: 'patent_utility' });
      await services.matters.advance('g', m.id);
      ids.push(m.id);
    }
    expect(services.supervisor.residentCount).toBeLessThanOrEqual(2);
    for (const id of ids) {
      const m = await services.matters.get('g', id);
      expect(m.journal.map((e) => e.kind)).toEqual(['matter.opened', 'stage']);
      expect((m.snapshot().value as { open: string }).open).toBe('prepare');
    }
    // A rebuilt actor carries on where the journal left it.
    await services.matters.advance('g', ids[0]);
    const again = createServices({ journal });
    expect(((await again.matters.get('g', ids[0])).snapshot().value as { open: string }).open).toBe('examine');
  });

  it('hydrates one actor once when many requests touch it together', async () => {
    const journal = new MemoryJournal();
    const first = createServices({ journal });
    const m = await first.matters.create('g', { matterType: 'patent_utility' });
    const second = createServices({ journal });
    const loaded = await Promise.all(Array.from({ length: 10 }, () => second.matters.get('g', m.id)));
    expect(new Set(loaded).size).toBe(1);
  });

  it('stamps journal entries from the clock port', async () => {
    const services = createServices({ journal: new MemoryJournal(), clock: fixedClock('2030-01-01T00:00:00.000Z') });
    const m = await services.matters.create('g', { matterType: 'patent_utility' });
    await services.matters.advance('g', m.id);
    const stamps = (await services.journal.readTail('g', { after: 0, limit: 10, feed: 'timeline' })).map((e) => e.at);
    // One millisecond per journaled event, in journal order.
    expect(stamps).toEqual(stamps.map((_, i) => new Date(Date.parse('2030-01-01T00:00:00.000Z') + i).toISOString()));
  });

  it("sends each committed event to the entity's actor once; readers see the new state only once the append is durable", async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const m = await services.matters.create('g', { matterType: 'patent_utility' });
    const event = { type: 'ADVANCE', by: 'agent' } as const;
    const from = m.snapshot();
    const [expected] = transition(matterMachine, from, event);
    const transitions = vi.spyOn(matterMachine, 'transition');
    let seenDuringAppend: unknown;
    const append = journal.append.bind(journal);
    vi.spyOn(journal, 'append').mockImplementationOnce(async (grain, writes) => {
      seenDuringAppend = m.snapshot();
      return append(grain, writes);
    });
    await services.supervisor.commit(m, [event]);
    // The machine ran once, in the actor; while the append was under way readers saw the committed state.
    expect(transitions).toHaveBeenCalledTimes(1);
    transitions.mockRestore();
    expect(seenDuringAppend).toBe(from);
    expect(m.snapshot().value).toEqual(expected.value);
    expect(m.snapshot().context).toEqual(expected.context);
  });

  it('drops an actor whose append failed: nobody sees the state, and the next touch rebuilds it from the journal', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const m = await services.matters.create('g', { matterType: 'patent_utility' });
    vi.spyOn(journal, 'append').mockRejectedValueOnce(new Error('disk full'));
    await expect(services.matters.advance('g', m.id)).rejects.toThrow('disk full');
    expect(m.snapshot().value).toEqual({ open: 'intake' });
    const again = await services.matters.get('g', m.id);
    expect(again).not.toBe(m);
    expect(again.snapshot().value).toEqual({ open: 'intake' });
    expect((await services.matters.advance('g', m.id)).entity.snapshot().value).toEqual({ open: 'prepare' });
  });

  it('refuses to load a stream its machine no longer reads as written, naming stream, seq, event and state, and serves everything else', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const good = await services.matters.create('g', { matterType: 'patent_utility' });
    const bad = await services.matters.create('g', { matterType: 'patent_utility' });
    // A recorded event the machine refuses from the state before it: an escalation straight out of intake.
    await journal.append('g', [{ stream: bad.id, expectedVersion: 1, events: [{ kind: 'gig.posted', at: '2030-01-01T00:00:00.000Z', subject: bad.id, summary: 'x', verb: 'sign', by: 'gate', data: {}, cause: { type: 'ESCALATE', gigId: 'gig_x' } }] }]);
    // And one it now answers with another fact than the journal recorded.
    const other = await services.matters.create('g', { matterType: 'patent_utility' });
    await journal.append('g', [{ stream: other.id, expectedVersion: 1, events: [{ kind: 'consent', at: '2030-01-01T00:00:00.000Z', subject: other.id, summary: 'x', by: 'gate', data: {}, cause: { type: 'ADVANCE', by: 'agent' } }] }]);
    const fresh = createServices({ journal });
    await expect(fresh.matters.get('g', bad.id)).rejects.toMatchObject({ status: 500, code: 'ENTITY_UNREADABLE', extra: { stream: bad.id, seq: 7, event: 'ESCALATE', state: '{"open":"intake"}' } });
    await expect(fresh.matters.get('g', other.id)).rejects.toMatchObject({ code: 'ENTITY_UNREADABLE', message: expect.stringContaining('answers with stage prepare where the journal recorded consent') });
    expect((await fresh.matters.get('g', good.id)).id).toBe(good.id);
  });

  it('keeps the actors a commit opens resident from the events it wrote: a new Matter, its ladder and its minting are never read back', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const reads = vi.spyOn(journal, 'readStream');
    const m = await services.matters.create('g', { matterType: 'patent_utility' });
    const minted = await services.matters.mintingOf(m);
    const ladder = await services.ladders.viewOf('g', minted.stream);
    expect(reads).not.toHaveBeenCalled();
    expect(minted.kind).toBe('asset.minted');
    expect(ladder).not.toBeNull();
    // What it holds is what a rehydration from the journal gives.
    const again = createServices({ journal });
    expect(await again.ladders.view('g', minted.stream)).toEqual(await services.ladders.view('g', minted.stream));
    expect(await again.matters.mintingOf(await again.matters.get('g', m.id))).toEqual(minted);
  });

  it('opens every stream with the snapshot a fresh actor computes from its input, however many openings pass between two of the same input', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const opened: Array<{ matter: string; ladder: string; pattern: string }> = [];
    // More unique ladder inputs between two Matters of one pattern than the kept initial states.
    for (let i = 0; i < 150; i++) {
      const pattern = i % 50 === 0 ? 'B2H2A' : 'B2A';
      const m = await services.matters.create('g', { matterType: 'patent_utility', consumerPattern: pattern });
      opened.push({ matter: m.id, ladder: ladderStreamOf(String(m.journal[0].data.assetId)), pattern });
    }
    const fresh = (machine: AnyStateMachine, input: unknown) => JSON.stringify(createActor(machine, { input } as never).getPersistedSnapshot());
    for (const { matter, ladder, pattern } of opened) {
      expect((await journal.readSnapshot(matter))!.state).toBe(fresh(matterMachine, { consumerPattern: pattern }));
      const ladderRow = await journal.readSnapshot(ladder);
      const [ladderOpening] = await journal.readStream(ladder);
      expect(ladderRow!.state).toBe(fresh(LADDER.machine, (ladderOpening.cause as { input: unknown }).input));
    }
  });

  it('answers a page of Matters and a ladder from the snapshot rows after a restart: no stream read, no fold, nothing made resident', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await services.matters.create('g', { matterType: 'patent_utility' }));
    await services.matters.advance('g', created[1].id, {});
    const assetId = (await services.matters.mintingOf(created[0])).stream;
    const again = createServices({ journal });
    const reads = vi.spyOn(journal, 'readStream');
    const page = await again.matters.list('g', { limit: 10 });
    expect(page.matters.map((m) => (m instanceof Unreadable ? [m.id, 'unreadable'] : [m.id, m.version, m.snapshot().value]))).toEqual(created.map((m) => [m.id, m.version, m.snapshot().value]));
    expect(await again.ladders.viewOf('g', assetId)).toEqual(await services.ladders.viewOf('g', assetId));
    expect(reads).not.toHaveBeenCalled();
    expect(again.supervisor.residentCount).toBe(0);
    // A load for a write reads the stream, and resumes from its current row: nothing is folded.
    const loaded = await again.matters.get('g', created[1].id);
    expect(loaded.resumedAt).toBe(loaded.version);
    expect(loaded.snapshot().value).toEqual(created[1].snapshot().value);
  });

  it('keeps a state read from its snapshot row for the next read, and forgets it when its stream is appended to', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const matter = await services.matters.create('g', { matterType: 'patent_utility' });
    const assetId = (await services.matters.mintingOf(matter)).stream;
    // One resident entity: the ladder a tick makes resident is passivated by the next load.
    const again = createServices({ journal, residentActors: 1 });
    const heads = vi.spyOn(journal, 'readHead');
    const first = await again.ladders.viewOf('g', assetId);
    expect(await again.ladders.viewOf('g', assetId)).toEqual(first);
    expect(heads).toHaveBeenCalledTimes(1);
    // Another grain does not reach it, kept or not.
    expect(await again.ladders.viewOf('other', assetId)).toBeNull();
    await again.ladders.tick('g', assetId, 26);
    await again.matters.get('g', matter.id);
    const after = await again.ladders.viewOf('g', assetId);
    expect(after?.daysUntilDeadline).not.toBe(first?.daysUntilDeadline);
    expect(after?.version).toBe(await journal.streamVersion(`ladder:${assetId}`));
  });
});

describe('LEGALWORK_RESIDENT_ACTORS', () => {
  it('sets the resident pool: unset or empty, 20,000; a whole number from 100 to 1,000,000; anything else stops the start, worded', () => {
    expect(residentActorsOf(undefined)).toBe(DEFAULT_RESIDENT_ACTORS);
    expect(residentActorsOf('')).toBe(20_000);
    expect(residentActorsOf('5000')).toBe(5_000);
    expect(residentActorsOf('100')).toBe(100);
    for (const bad of ['99', '1000001', '5e3.5', 'many', '-1', '2500.5']) expect(() => residentActorsOf(bad), bad).toThrow(/LEGALWORK_RESIDENT_ACTORS must be a whole number from 100 to 1000000/);
  });
});
