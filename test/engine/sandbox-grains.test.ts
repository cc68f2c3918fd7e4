/**
 * A cached sandbox grain keeps its opening and the latest declaration of each
 * kind, not its whole stream: re-declaring a Tenant's Offers or routing a
 * thousand times keeps three events in memory, and the state read from them
 * (and the version the next declaration expects) is what the whole stream gives.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/compose.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { latestOfEachKind } from '../../src/engine/workspaces.ts';
import { GrainPurged } from '../../src/journal/retention.ts';

describe('sandbox grains in memory', () => {
  it('keep a Tenant re-declared many times at its opening and latest declaration of each kind, with the version of its stream', async () => {
    const journal = new MemoryJournal();
    const services = createServices({ journal });
    const { tenants } = services;
    const id = (await tenants.open()).record.id;
    for (let i = 1; i <= 60; i++) {
      await tenants.declareOffers(id, [{ id: `of_${i}`, title: `Offer ${i}`, priceUsd: i }]);
      await tenants.declareRouting(id, { maxFeeUsd: 1000 + i });
    }
    const grain = await tenants.resolve(id);
    expect(grain.version).toBe(121);
    expect(grain.stream.map((e) => e.kind)).toEqual(['tenant.opened', 'tenant.offers.declared', 'tenant.routing.declared']);
    expect(tenants.stateOf(grain)).toMatchObject({ offers: [{ id: 'of_60', priceUsd: 60 }], routing: { maxFeeUsd: 1060 } });
    expect(await tenants.guardrailsOf(id)).toEqual({ maxFeeUsd: 1060 });

    // The same state and version from the whole stream, read back as after a restart; the next declaration lands at its version.
    const whole = await journal.readStream(id);
    expect(whole).toHaveLength(121);
    const again = createServices({ journal }).tenants;
    const reread = await again.resolve(id);
    expect(reread.version).toBe(121);
    expect(reread.stream).toEqual(latestOfEachKind(whole));
    expect(again.stateOf(reread)).toEqual(tenants.stateOf(grain));
    await again.declareRouting(id, { maxFeeUsd: 5 });
    expect((await journal.readStream(id)).at(-1)).toMatchObject({ version: 122, kind: 'tenant.routing.declared' });
    expect((await again.resolve(id)).stream.map((e) => e.version)).toEqual([1, 120, 122]);
  });

  it('keep the order of the journal: the latest declaration of each kind, oldest first', () => {
    const e = (version: number, kind: string) => ({ version, kind }) as Parameters<typeof latestOfEachKind>[0][number];
    const stream = [e(1, 'firm.opened'), e(2, 'firm.routing.declared'), e(3, 'other'), e(4, 'firm.routing.declared')];
    expect(latestOfEachKind(stream).map((x) => x.version)).toEqual([1, 3, 4]);
  });

  it('never give an id twice: one the journal refuses as a purged grain\'s is drawn again', async () => {
    const journal = new MemoryJournal();
    const { workspaces } = createServices({ journal });
    // The journal answers the first opening as a purged grain's id met again (its 128 random bits drawn twice).
    const refused: string[] = [];
    const append = journal.append.bind(journal);
    journal.append = async (grain, writes) => {
      if (refused.length === 0 && writes[0]?.events[0]?.kind === 'workspace.opened') {
        refused.push(grain);
        throw new GrainPurged(grain);
      }
      return append(grain, writes);
    };
    const opened = await workspaces.open();
    expect(refused).toHaveLength(1);
    expect(opened.record.id).not.toBe(refused[0]);
    expect((await workspaces.resolve(opened.record.id)).record.id).toBe(opened.record.id);
  });
});
