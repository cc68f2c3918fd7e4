import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { matterMachine, type ConsumerPattern, type MatterEvent } from '../../machines/matter.ts';
import { emittedFacts } from '../helpers/facts.ts';

type Snap = SnapshotFrom<typeof matterMachine>;
const attestation = { signedBy: 'sg_fixture_eligible', credentialRef: 'uspto-reg:1', artifactHash: `sha256:${'a'.repeat(64)}` };

function run(pattern: ConsumerPattern, events: MatterEvent[]) {
  let [snapshot] = initialTransition(matterMachine, { consumerPattern: pattern });
  const facts = [];
  for (const event of events) {
    const [next, actions] = transition(matterMachine, snapshot, event);
    facts.push(...emittedFacts(actions as never));
    snapshot = next;
  }
  return { snapshot: snapshot as Snap, facts };
}
const status = (s: Snap) => (typeof s.value === 'string' ? s.value : (s.value as { open: string }).open);
const advance: MatterEvent = { type: 'ADVANCE', by: 'agent' };
const toReview = [advance, advance, advance];

describe('the Matter machine', () => {
  it('opens in intake', () => {
    expect(status(run('B2A', []).snapshot)).toBe('intake');
  });

  it('walks intake to review, escalates sign and file, and is fulfilled off the receipt', () => {
    const { snapshot, facts } = run('B2A', [
      ...toReview,
      { type: 'ESCALATE', gigId: 'gig_1' },
      { type: 'GIG_ATTESTED', gigId: 'gig_1', attestation },
      { type: 'ESCALATE', gigId: 'gig_2' },
      { type: 'GIG_ATTESTED', gigId: 'gig_2', attestation, receipt: 'r' },
      { type: 'FILE_RECEIPT', receipt: 'r' },
    ]);
    expect(status(snapshot)).toBe('fulfilled');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context.attestedActs).toBe(2);
    expect(facts.map((f) => `${f.kind}:${f.verb}`)).toEqual(['stage:prepare', 'stage:examine', 'stage:review', 'gig.posted:sign', 'stage:sign', 'gig.posted:file', 'stage:file', 'lifecycle:fulfilled']);
  });

  it('emits exactly one fact per accepted event', () => {
    const events: MatterEvent[] = [...toReview, { type: 'CONSENT', actor: 'client', scope: 'all' }, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_DECLINED', gigId: 'g', memo: 'no' }, { type: 'CLIENT_DIRECTION', instruction: 'go' }];
    expect(run('B2A', events).facts).toHaveLength(events.length);
  });

  it('holds a B2A2D Matter at intake until consent is journaled', () => {
    expect(status(run('B2A2D', [advance]).snapshot)).toBe('intake');
    expect(status(run('B2A2D', [{ type: 'CONSENT', actor: 'client', scope: 'engagement' }, advance]).snapshot)).toBe('prepare');
  });

  it('sends back to prepare and declines into needs_client_direction, reopening before the declined act', () => {
    expect(status(run('B2A', [...toReview, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_SENT_BACK', gigId: 'g', memo: 'defects' }]).snapshot)).toBe('prepare');
    const declined = run('B2A', [...toReview, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_DECLINED', gigId: 'g', memo: 'no' }]);
    expect(status(declined.snapshot)).toBe('needs_client_direction');
    expect(declined.snapshot.can(advance)).toBe(false);
    expect(status(run('B2A', [...toReview, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_DECLINED', gigId: 'g', memo: 'no' }, { type: 'CLIENT_DIRECTION', instruction: 'proceed' }]).snapshot)).toBe('review');
  });

  it('ignores a Signer answer for another Gig', () => {
    const { snapshot } = run('B2A', [...toReview, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_ATTESTED', gigId: 'other', attestation }]);
    expect(status(snapshot)).toBe('waiting_on_signer');
  });

  it('refuses the terminal door while waiting on a Signer, and applies its predicates elsewhere', () => {
    const waiting = run('B2A', [...toReview, { type: 'ESCALATE', gigId: 'g' }]).snapshot;
    expect(waiting.can({ type: 'WITHDRAW', byClient: true })).toBe(false);
    const open = run('B2A', []).snapshot;
    expect(open.can({ type: 'WITHDRAW', byClient: false })).toBe(false);
    expect(open.can({ type: 'LAPSE', confirmedUnresponsiveTwice: false })).toBe(false);
    expect(open.can({ type: 'REFER_OUT', referredTo: ' ' })).toBe(false);
    expect(status(run('B2A', [{ type: 'REFER_OUT', referredTo: 'counsel' }]).snapshot)).toBe('referred_out');
  });

  it('keeps a terminal forever', () => {
    const { snapshot } = run('B2A', [{ type: 'WITHDRAW', byClient: true }]);
    for (const event of [advance, { type: 'CONSENT', actor: 'client', scope: 's' }, { type: 'CLIENT_DIRECTION', instruction: 'x' }] as MatterEvent[]) {
      expect(snapshot.can(event)).toBe(false);
      expect(status(transition(matterMachine, snapshot, event)[0] as Snap)).toBe('withdrawn');
    }
  });

  it('cannot reach fulfilled without an attested act', () => {
    expect(run('B2A', [{ type: 'FILE_RECEIPT', receipt: 'r' }]).snapshot.can({ type: 'FILE_RECEIPT', receipt: 'r' })).toBe(false);
  });
});
