/**
 * Property: whatever paid acts a key fires at once, and whatever its ceiling,
 * the acts that land never pass the ceiling, every refused act would have
 * passed it, and the committed spend folded back from the journal equals the
 * posted prices of the acts that landed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MATTER_TYPES, type MatterType } from '../src/domain/matter-types.ts';
import { POSTED_PRICES } from '../src/domain/pricing.ts';
import { Keys } from '../src/engine/keys.ts';
import { call, testApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

describe('the spend ceiling under concurrent paid acts', () => {
  it('holds, and the journal agrees', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1500 }), fc.array(fc.constantFrom(...MATTER_TYPES), { minLength: 1, maxLength: 8 }), async (ceiling, types) => {
        const issued = await call(app, 'POST', '/keys', { email: 'prop@example.com', spendCeilingUsd: ceiling });
        const auth = { authorization: `Bearer ${issued.body.key}` };
        const results = await Promise.all(types.map((matterType) => call(app, 'POST', '/matters', { matterType }, auth)));
        const price = (t: MatterType) => POSTED_PRICES[t].productFeeUsd;
        const landed = types.filter((_, i) => results[i].status === 201);
        const refused = types.filter((_, i) => results[i].status === 403);
        expect(landed.length + refused.length).toBe(types.length);
        const spent = landed.reduce((sum, t) => sum + price(t), 0);
        expect(spent).toBeLessThanOrEqual(ceiling);
        for (const t of refused) expect(spent + price(t)).toBeGreaterThan(ceiling);
        // A fresh fold of the key's stream, as after a restart, finds the same spend.
        const record = await new Keys(app.services.supervisor).lookup(issued.body.key);
        expect(record?.owner.committedUsd).toBe(spent);
      }),
      { numRuns: 30 },
    );
  });
});
