import { describe, expect, it } from 'vitest';
import { matterMachine, matterStatus, type MatterEvent } from '../../machines/matter.ts';
import { specOf, type Given } from '../helpers/decider-spec.ts';

const attestation = { signedBy: 'sg_fixture_eligible', credentialRef: 'uspto-reg:1', artifactHash: `sha256:${'a'.repeat(64)}` };
const matter = specOf(matterMachine, { consumerPattern: 'B2A' }, 'mt_machine');
const status = (given: Given<typeof matterMachine>) => matterStatus(given.snapshot());
const advance: MatterEvent = { type: 'ADVANCE', by: 'agent' };
const toReview = [advance, advance, advance];

describe('the Matter machine', () => {
  it('opens in intake', () => {
    expect(status(matter.given())).toBe('intake');
  });

  it('walks intake to review, escalates sign and file, and is fulfilled off the receipt', () => {
    const fulfilled = matter.given(
      ...toReview,
      { type: 'ESCALATE', gigId: 'gig_1' },
      { type: 'GIG_ATTESTED', gigId: 'gig_1', attestation },
      { type: 'ESCALATE', gigId: 'gig_2' },
      { type: 'GIG_ATTESTED', gigId: 'gig_2', attestation, receipt: 'r' },
      { type: 'FILE_RECEIPT', receipt: 'r' },
    );
    expect(status(fulfilled)).toBe('fulfilled');
    expect(fulfilled.snapshot().status).toBe('done');
    expect(fulfilled.snapshot().context.attestedActs).toBe(2);
    expect(fulfilled.facts.map((f) => `${f.kind}:${f.verb}`)).toEqual(['stage:prepare', 'stage:examine', 'stage:review', 'gig.posted:sign', 'stage:sign', 'gig.posted:file', 'stage:file', 'lifecycle:fulfilled']);
  });

  it('emits exactly one fact per accepted event', () => {
    const events: MatterEvent[] = [...toReview, { type: 'CONSENT', actor: 'client', scope: 'all' }, { type: 'ESCALATE', gigId: 'g' }, { type: 'GIG_DECLINED', gigId: 'g', memo: 'no' }, { type: 'CLIENT_DIRECTION', instruction: 'go' }];
    expect(matter.given(...events).facts).toHaveLength(events.length);
  });

  it('holds a B2A2D Matter at intake until consent is journaled', () => {
    const downstream = matter.opened({ consumerPattern: 'B2A2D' });
    expect(status(downstream.given().refuses(advance))).toBe('intake');
    expect(status(downstream.given({ type: 'CONSENT', actor: 'client', scope: 'engagement' }, advance))).toBe('prepare');
  });

  it('sends back to prepare and declines into needs_client_direction, reopening before the declined act', () => {
    const waiting = matter.given(...toReview, { type: 'ESCALATE', gigId: 'g' });
    expect(status(waiting.and({ type: 'GIG_SENT_BACK', gigId: 'g', memo: 'defects' }))).toBe('prepare');
    const declined = waiting.and({ type: 'GIG_DECLINED', gigId: 'g', memo: 'no' });
    expect(status(declined.refuses(advance))).toBe('needs_client_direction');
    expect(status(declined.and({ type: 'CLIENT_DIRECTION', instruction: 'proceed' }))).toBe('review');
  });

  it('ignores a Signer answer for another Gig', () => {
    const waiting = matter.given(...toReview, { type: 'ESCALATE', gigId: 'g' }).refuses({ type: 'GIG_ATTESTED', gigId: 'other', attestation });
    expect(status(waiting)).toBe('waiting_on_signer');
  });

  it('refuses the terminal door while waiting on a Signer, and applies its predicates elsewhere', () => {
    matter.given(...toReview, { type: 'ESCALATE', gigId: 'g' }).refuses({ type: 'WITHDRAW', byClient: true });
    matter.given().refuses({ type: 'WITHDRAW', byClient: false }).refuses({ type: 'LAPSE', confirmedUnresponsiveTwice: false }).refuses({ type: 'REFER_OUT', referredTo: ' ' });
    expect(status(matter.given({ type: 'REFER_OUT', referredTo: 'counsel' }))).toBe('referred_out');
  });

  it('keeps a terminal forever', () => {
    const withdrawn = matter.given({ type: 'WITHDRAW', byClient: true });
    for (const event of [advance, { type: 'CONSENT', actor: 'client', scope: 's' }, { type: 'CLIENT_DIRECTION', instruction: 'x' }] as MatterEvent[]) {
      expect(status(withdrawn.refuses(event))).toBe('withdrawn');
    }
  });

  it('cannot reach fulfilled without an attested act', () => {
    matter.given().refuses({ type: 'FILE_RECEIPT', receipt: 'r' });
  });
});
