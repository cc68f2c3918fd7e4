/**
 * The key records kept in memory are bounded (anyone may mint keys), and a
 * record forgotten while a request still holds it stays safe to reserve on:
 * two copies of one key's record in one process never let the spend pass
 * its ceiling, and the journal agrees with both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../src/engine/keys.ts';
import { testApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

describe('the key records in memory', () => {
  it('are at most the capacity, and a forgotten key is read back from the journal whole', async () => {
    const keys = new Keys(app.services.supervisor, { capacity: 2 });
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push(await keys.issue({ email: `k${i}@example.com`, spendCeilingUsd: 100 + i }));
    expect(keys.resident).toBe(2);
    const first = await keys.lookup(issued[0].key);
    expect(first).not.toBe(issued[0].record);
    expect(first).toMatchObject({ id: issued[0].record.id, owner: { email: 'k0@example.com', spendCeilingUsd: 100, committedUsd: 0 } });
    expect(keys.resident).toBe(2);
  });

  it('keeps the most recently used: a key in use is not the one forgotten', async () => {
    const keys = new Keys(app.services.supervisor, { capacity: 2 });
    const a = await keys.issue({ email: 'a@example.com' });
    await keys.issue({ email: 'b@example.com' });
    expect(await keys.lookup(a.key)).toBe(a.record);
    await keys.issue({ email: 'c@example.com' });
    // b was used longest ago, so a is still the same record.
    expect(await keys.lookup(a.key)).toBe(a.record);
  });

  it('holds the ceiling across a stale copy and a fresh one of the same key', async () => {
    const keys = new Keys(app.services.supervisor, { capacity: 1 });
    const { key, record: stale } = await keys.issue({ email: 'ceiling@example.com', spendCeilingUsd: 25 });
    await keys.issue({ email: 'other@example.com' });
    const fresh = (await keys.lookup(key))!;
    expect(fresh).not.toBe(stale);
    await keys.reserve(stale, 'r1', 10, 'act one');
    // The fresh copy folded the key before r1: its append conflicts, folds r1, and decides again.
    await keys.reserve(fresh, 'r2', 10, 'act two');
    expect(fresh.owner.committedUsd).toBe(20);
    await expect(keys.reserve(stale, 'r3', 10, 'act three')).rejects.toMatchObject({ code: 'SPEND_CEILING' });
    expect(stale.owner.committedUsd).toBe(20);
    await keys.release(stale, 'r1', 'refused downstream');
    await keys.reserve(fresh, 'r4', 10, 'act four');
    // A fold of the journal, as after a restart, finds the same spend: r2 and r4.
    expect((await new Keys(app.services.supervisor).lookup(key))!.owner.committedUsd).toBe(20);
  });
});
