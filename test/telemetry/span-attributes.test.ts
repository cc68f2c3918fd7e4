/**
 * A span's attributes come from sets the code names: the port's types refuse
 * a string typed `string` (an id, a key, a name a caller gave) as any
 * attribute's value, on a span's opening attributes and on what is set on it
 * later. The refusals are compile errors, held here by `@ts-expect-error`
 * (`npm test`'s typecheck fails if one of them compiles).
 */
import { describe, expect, it } from 'vitest';
import { tracing } from '../../src/lib/telemetry.ts';

const openValue = (): string => 'mt_anyone';

describe('span attributes', () => {
  it('take values of closed sets, numbers and flags, and nothing typed as any string', async () => {
    const outcome = Math.random() < 2 ? 'delivered' : 'failed';
    const ran = await tracing.span('closed', { 'legalwork.outcome': outcome, 'legalwork.webhook.attempt': 1 }, async (span) => {
      span.set('legalwork.journal.events', 3);
      span.set('legalwork.outcome', outcome);
      // @ts-expect-error an open string (an id) is no attribute's value
      span.set('legalwork.entity.kind', openValue());
      return true;
    });
    // @ts-expect-error nor on a span's opening attributes
    await tracing.span('open', { 'legalwork.effect': openValue() }, async () => undefined);
    expect(ran).toBe(true);
  });
});
