/**
 * The population engine (src/engine/population.ts) on an in-memory journal:
 * ages are counted on the service's clock, a grain that never held a record
 * of the machine answers zeros without rebuilding anything, and one whose
 * counts are gone is rebuilt from its journal.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/compose.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { populationsOf } from '../../src/engine/population.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';

/** A fixed clock whose reads are an hour and a half after its stamps. */
function laterClock(): Clock {
  let ticks = 0;
  const start = Date.parse('2030-01-01T00:00:00.000Z');
  return { stamp: () => new Date(start + ticks++).toISOString(), now: () => new Date(start + 90 * 60_000).toISOString() };
}

describe('the population engine', () => {
  it('counts ages to the service\'s clock', async () => {
    const services = createServices({ journal: new MemoryJournal(), clock: laterClock() });
    const m = await services.matters.create('ws_clock', { matterType: 'patent_provisional' } as never);
    const p = await populationsOf(services.supervisor).of('ws_clock', 'matter');
    expect(p.asOf).toBe('2030-01-01T01:30:00.000Z');
    const intake = p.states.find((s) => s.path === 'open.intake')!;
    expect(intake.oldest).toMatchObject({ id: m.id, since: m.opened.at, ageSeconds: 90 * 60 });
  });

  it('answers zeros for a grain that never held one, and rebuilds a grain whose counts are gone', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const populations = populationsOf(services.supervisor);
    const none = await populations.of('ws_none', 'matter');
    expect(none.total).toBe(0);
    expect(none.states.every((s) => s.count === 0 && s.oldest === undefined)).toBe(true);
    expect(none.transitions.every((t) => t.count === 0)).toBe(true);

    const m = await services.matters.create('ws_some', { matterType: 'patent_provisional' } as never);
    await services.matters.advance('ws_some', m.id, {});
    const before = await populations.of('ws_some', 'matter');
    // The counts lost (as a database an earlier build made has none): rebuilt from the journal, the same.
    await journal.resetPopulation('ws_some', { tag: 'matter@1#gone', id: 'matter', facets: 0 }, await journal.latestSeq('ws_some'), { ledger: { streams: 0, events: 0, transitions: 0 }, transitions: [] });
    expect((await populations.of('ws_some', 'matter')).transitions).toEqual(before.transitions);
    expect((await populations.of('ws_some', 'matter')).states.find((s) => s.path === 'open.prepare')!.count).toBe(1);
  });
});
