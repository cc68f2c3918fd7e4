/**
 * fast-check properties of Deadline Ladders, on the pure machine (many runs)
 * and through HTTP with the machine as the oracle (fewer, each on a fresh
 * ladder): days never go below 0, the notice fires exactly once per crossing
 * of 30, and a resolved ladder is forever. A failure prints its seed and
 * shrunk command list, so it can be replayed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { deadlineLadderMachine, NOTICE_RUNG_DAYS, TERMINAL_OUTCOMES, type LadderEvent, type LadderInput, type Rung } from '../machines/deadline-ladder.ts';
import { emittedFacts } from './helpers/facts.ts';
import { call, testApp, type TestApp } from './helpers/app.ts';
import { ladderAdapter } from './model/deadline-ladder.adapter.ts';
import { Replay } from './model/runner.ts';

/** Random commands, legal and illegal, with payloads around every rung. */
const command: fc.Arbitrary<LadderEvent> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 45 }).map((days) => ({ type: 'TICK' as const, days })) },
  { weight: 2, arbitrary: fc.constantFrom('Dana Reviewer', ' ').map((actor) => ({ type: 'ACK' as const, actor })) },
  { weight: 1, arbitrary: fc.constantFrom('platform', 'sg_fixture_eligible', '').map((signerId) => ({ type: 'MONITOR' as const, signerId })) },
  { weight: 1, arbitrary: fc.constantFrom('receipt-1', '').map((evidenceRef) => ({ type: 'SATISFY' as const, evidenceRef })) },
  { weight: 1, arbitrary: fc.constantFrom(...TERMINAL_OUTCOMES, 'settle').map((outcome) => ({ type: 'RESOLVE' as const, outcome: outcome as never })) },
);

const ladderInput: fc.Arbitrary<LadderInput> = fc.record({
  assetId: fc.constant('as_prop'),
  daysUntilDeadline: fc.integer({ min: 1, max: 70 }),
  recurEveryDays: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
});

/** What an observer sees of one step: days before and after, and the notices fired. */
interface Step {
  accepted: boolean;
  before: number;
  after: number;
  notices: number;
  resolvedBefore: boolean;
}

function run(input: LadderInput, events: LadderEvent[]) {
  let [snapshot] = initialTransition(deadlineLadderMachine, input);
  const steps: Step[] = [];
  for (const event of events) {
    const before = snapshot.context.days;
    const resolvedBefore = snapshot.value === 'resolved';
    if (!(snapshot as AnyMachineSnapshot).can(event)) {
      steps.push({ accepted: false, before, after: before, notices: 0, resolvedBefore });
      continue;
    }
    const [next, actions] = transition(deadlineLadderMachine, snapshot, event);
    const facts = emittedFacts(actions as never);
    const notices = facts.flatMap((f) => (f.data.rungs as Rung[] | undefined) ?? []).filter((r) => r.rung === 'notice').length;
    steps.push({ accepted: true, before, after: next.context.days, notices, resolvedBefore });
    snapshot = next;
  }
  return { steps, snapshot };
}

describe('ladder invariants on the pure machine', () => {
  it('days never go below 0', () => {
    fc.assert(
      fc.property(ladderInput, fc.array(command, { maxLength: 40 }), (input, events) => {
        for (const step of run(input, events).steps) expect(step.after).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  it('the notice fires exactly once per crossing of 30, and never twice without the count rising above 30 between', () => {
    fc.assert(
      fc.property(ladderInput, fc.array(command, { maxLength: 40 }), (input, events) => {
        const { steps } = run(input, events);
        const crossings = steps.filter((s) => s.accepted && s.before > NOTICE_RUNG_DAYS && s.after <= NOTICE_RUNG_DAYS).length;
        expect(steps.reduce((n, s) => n + s.notices, 0)).toBe(crossings);
        let armed = input.daysUntilDeadline > NOTICE_RUNG_DAYS;
        for (const s of steps) {
          if (s.notices) {
            expect(s.notices).toBe(1);
            expect(armed).toBe(true);
            armed = false;
          }
          if (s.after > NOTICE_RUNG_DAYS) armed = true;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a resolved ladder is forever: it refuses every event and never changes', () => {
    fc.assert(
      fc.property(ladderInput, fc.array(command, { maxLength: 60 }), (input, events) => {
        const { steps, snapshot } = run(input, events);
        for (const s of steps) if (s.resolvedBefore) expect(s.accepted).toBe(false);
        if (snapshot.value !== 'resolved') return;
        const frozen = JSON.stringify(snapshot.context);
        for (const event of events) {
          expect((snapshot as AnyMachineSnapshot).can(event)).toBe(false);
        }
        expect(JSON.stringify(snapshot.context)).toBe(frozen);
      }),
      { numRuns: 500 },
    );
  });
});

describe('ladder invariants through HTTP, the machine as oracle', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp({ creationBound: { limit: 1_000_000 } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('random commands agree with the machine at every step; days stay >= 0; one notice per crossing; resolved is forever', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ladderAdapter.variants), fc.array(command, { minLength: 1, maxLength: 14 }), async (variant, events) => {
        const replay = await new Replay(ladderAdapter, app, variant, `[property ${variant.name}]`).open();
        for (const event of events) await replay.send(event);
        const url = `${replay.handle.prefix}/deadlines/${replay.handle.assetId}`;
        const view = await call(app, 'GET', url);
        expect(view.body.daysUntilDeadline).toBeGreaterThanOrEqual(0);
        // The tail's own record: each tick's from/to, and the notices it carried.
        const tail = (await call(app, 'GET', `${replay.handle.prefix}/events?limit=500`)).body.results as Array<{ kind: string; data: { from?: number; to?: number } }>;
        const ticks = tail.filter((e) => e.kind === 'ladder.ticked');
        for (const t of ticks) expect(t.data.to).toBeGreaterThanOrEqual(0);
        const crossings = ticks.filter((t) => t.data.from! > NOTICE_RUNG_DAYS && t.data.to! <= NOTICE_RUNG_DAYS).length;
        expect(tail.filter((e) => e.kind === 'reminder.notice')).toHaveLength(crossings);
        if (view.body.status === 'resolved') {
          for (const [door, body] of [['tick', { days: 1 }], ['ack', { actor: 'Dana' }], ['monitor', { signerId: 'platform' }], ['satisfy', { evidenceRef: 'x' }], ['resolve', { outcome: 'clientNotice' }]] as const) {
            expect((await call(app, 'POST', `${url}/${door}`, body)).status).toBe(409);
          }
          expect((await call(app, 'GET', url)).body).toEqual(view.body);
        }
      }),
      { numRuns: 40 },
    );
  }, 300_000);
});
