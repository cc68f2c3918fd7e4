/**
 * fast-check properties of the Matter through HTTP: random sequences of legal
 * and illegal commands agree with the machine, a terminal is forever, the
 * journal only grows, and concurrent commands to one Matter behave like some
 * serial order of them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { MatterEvent, matterMachine } from '../../machines/matter.ts';
import { call, testApp, type TestApp } from '../helpers/app.ts';
import { matterAdapter, matterEvents, MODEL_GIG, STALE_GIG, type MatterHandle } from './matter.adapter.ts';
import { agreesWithMachine, checkProperty } from './property.ts';
import { oracleStep, Replay, type Trace } from './runner.ts';

type Snap = SnapshotFrom<typeof matterMachine>;

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

async function journalOf(handle: MatterHandle): Promise<unknown[]> {
  const res = await call(app, 'GET', `${handle.prefix}/matters/${handle.id}/journal`);
  if (res.status !== 200) throw new Error(`GET journal answered ${res.status} ${res.raw}`);
  return res.body.events;
}

describe('Matter properties through HTTP', () => {
  it('random legal and illegal commands agree with the machine; terminal is forever; the journal only grows', async () => {
    await agreesWithMachine(matterAdapter, app, {
      numRuns: 100,
      invariants: () => {
        let seen: unknown[] = [];
        return {
          async afterOpen(replay) {
            seen = await journalOf(replay.handle);
          },
          async afterStep(replay, outcome) {
            const now = await journalOf(replay.handle);
            const grew = now.length - seen.length;
            if (grew !== outcome.emitted.length) throw new Error(`${replay.label}: the journal grew by ${grew} for ${outcome.emitted.length} emitted facts`);
            // Append-only: what was read before is still there, byte for byte.
            if (JSON.stringify(now.slice(0, seen.length)) !== JSON.stringify(seen)) throw new Error(`${replay.label}: the journal changed under an existing entry`);
            seen = now;
          },
        };
      },
    });
  }, 600_000);

  it('concurrent commands to one Matter behave like some serial order of them', async () => {
    const doors = ['advance', 'consent', 'direction', 'document', 'withdraw', 'lapse', 'refer', 'attest', 'sendBack', 'decline'] as const;
    type Door = (typeof doors)[number];
    /** The event type behind each door but `advance`, which carries the state's one advance event. */
    const TYPE_OF = {
      consent: 'CONSENT',
      direction: 'CLIENT_DIRECTION',
      document: 'RECORD_DOCUMENT',
      withdraw: 'WITHDRAW',
      lapse: 'LAPSE',
      refer: 'REFER_OUT',
      attest: 'GIG_ATTESTED',
      sendBack: 'GIG_SENT_BACK',
      decline: 'GIG_DECLINED',
    } as const satisfies Record<Exclude<Door, 'advance'>, MatterEvent['type']>;
    /**
     * The event a door carries from a snapshot. A Gig answer names the Gig
     * pending when the batch went out: if none was, no order of the batch can
     * make it match (a Gig posted inside the batch has an id the caller never saw).
     */
    const eventOf = (door: Door, s: Snap, gigAtBatch: boolean): MatterEvent => {
      const all = matterEvents(s);
      if (door === 'advance') return all[0];
      const event = all.find((e) => e.type === TYPE_OF[door])!;
      return 'gigId' in event ? { ...event, gigId: gigAtBatch ? MODEL_GIG : STALE_GIG } : event;
    };
    const permutations = <T>(xs: T[]): T[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest])));

    const property = fc.asyncProperty(
      fc.nat({ max: matterAdapter.variants.length - 1 }),
      fc.array(fc.nat({ max: 1_000 }), { maxLength: 8 }),
      fc.array(fc.constantFrom(...doors), { minLength: 2, maxLength: 4 }),
      async (v, prefix, batch) => {
        const variant = matterAdapter.variants[v];
        const replay = await new Replay(matterAdapter, app, variant, `[concurrency ${variant.name}]`).open();
        // Walk somewhere first, along legal steps only.
        for (const pick of prefix) {
          const legal = matterEvents(replay.snapshot).filter((e) => replay.snapshot.can(e));
          if (!legal.length) break;
          await replay.send(legal[pick % legal.length]);
        }
        const before = replay.snapshot;
        const gigAtBatch = before.context.pendingGig !== null;
        const sent = await Promise.all(batch.map((door) => matterAdapter.send(app, replay.handle, eventOf(door, before, gigAtBatch), before)));
        const observed = sent.map((r) => r.accepted);
        // Some serial order of the batch must give the same verdicts and the same Matter.
        const failures: string[] = [];
        for (const order of permutations(batch.map((door, i) => ({ door, i })))) {
          let snap = before;
          const trace: Trace<typeof matterMachine> = { applied: [...replay.trace.applied], emitted: [...replay.trace.emitted] };
          const verdicts: boolean[] = [];
          for (const { door, i } of order) {
            const outcome = oracleStep(matterAdapter, variant, snap, eventOf(door, snap, gigAtBatch));
            verdicts[i] = outcome.accepted;
            if (outcome.accepted) {
              snap = outcome.after;
              trace.applied.push(...outcome.applied);
              trace.emitted.push(...outcome.emitted);
            }
          }
          const label = order.map((o) => o.door).join(',');
          if (JSON.stringify(verdicts) !== JSON.stringify(observed)) {
            failures.push(`${label}: verdicts ${JSON.stringify(verdicts)}`);
            continue;
          }
          try {
            await matterAdapter.check(app, replay.handle, snap, trace);
            return;
          } catch (error) {
            failures.push(`${label}: ${(error as Error).message}`);
          }
        }
        throw new Error(`${replay.label} batch [${batch.join(', ')}] from ${JSON.stringify(before.value)} answered ${JSON.stringify(sent.map((r) => r.status))}, which no serial order explains:\n${failures.join('\n')}`);
      },
    );
    await checkProperty('concurrent Matter commands serialize', property, 60);
  }, 600_000);
});
