import { describe, expect, it, vi } from 'vitest';
import { Mailboxes } from '../../src/engine/mailbox.ts';
import { createServices } from '../../src/http/app.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { pureTransition } from '../../src/engine/entity.ts';
import { matterMachine } from '../../machines/matter.ts';

describe('mailboxes', () => {
  it('run work for one key strictly in arrival order, and other keys in parallel', async () => {
    const boxes = new Mailboxes();
    const log: string[] = [];
    const slow = (key: string, tag: string, ms: number) =>
      boxes.run(key, async () => {
        log.push(`start ${tag}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${tag}`);
      });
    await Promise.all([slow('a', 'a1', 20), slow('a', 'a2', 1), slow('b', 'b1', 1)]);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
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

  it("sends each committed event to the entity's actor, which adopts the previewed snapshot", async () => {
    const services = createServices({ journal: new MemoryJournal() });
    const m = await services.matters.create('g', { matterType: 'patent_utility' });
    const event = { type: 'ADVANCE', by: 'agent' } as const;
    const from = m.snapshot();
    const [expected] = pureTransition(matterMachine, from, event);
    const received: string[] = [];
    m.actor.subscribe({ next: () => received.push('snapshot') });
    const transitions = vi.spyOn(matterMachine, 'transition');
    await services.supervisor.commit(m, [event]);
    // The actor moved, as the machine would have moved it, on the preview's one transition.
    expect(transitions).toHaveBeenCalledTimes(1);
    transitions.mockRestore();
    expect(received).toEqual(['snapshot']);
    expect(m.snapshot()).not.toBe(from);
    expect(m.snapshot().value).toEqual(expected.value);
    expect(m.snapshot().context).toEqual(expected.context);
    // An event the preview did not compute goes through the machine itself.
    m.actor.send({ type: 'ADVANCE', by: 'agent' });
    expect(m.snapshot().value).toEqual({ open: 'examine' });
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
    expect((await again.ladders.get('g', minted.stream)).snapshot().value).toEqual((await services.ladders.get('g', minted.stream)).snapshot().value);
    expect(await again.matters.mintingOf(await again.matters.get('g', m.id))).toEqual(minted);
  });
});

