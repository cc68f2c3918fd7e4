/**
 * The Matter's decider, given/when/then: for each command, from each state
 * it meets, the events it sends (which the machine takes) or the refusal it
 * names. Between them the specs take every row of the Matter's transition
 * table and name every refusal the decider can give.
 */
import { describe, expect, it } from 'vitest';
import { decideAdvance, decideClientDirection, decideConsent, decideDocument, decideGigAnswer, decideTerminal, MATTER_REFUSALS, type AdvanceCommand, type GigAnswer, type SignerVerdict } from '../../machines/matter.decide.ts';
import { matterStatus, matterMachine, type MatterEvent } from '../../machines/matter.ts';
import { matterTable } from '../../machines/matter.table.ts';
import { specOf } from '../helpers/decider-spec.ts';

const ID = 'mt_spec';
const GIG = 'gig_spec';
const NEXT_GIG = 'gig_spec_next';
const matter = specOf(matterMachine, { consumerPattern: 'B2A' }, ID);

const attestation = { signedBy: 'sg_fixture_eligible', credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'a'.repeat(64)}` };
const ADVANCE: MatterEvent = { type: 'ADVANCE', by: 'agent' };
const TO_REVIEW: MatterEvent[] = [ADVANCE, ADVANCE, ADVANCE];
const WAITING_ON_SIGN: MatterEvent[] = [...TO_REVIEW, { type: 'ESCALATE', gigId: GIG }];
const SIGNED: MatterEvent[] = [...WAITING_ON_SIGN, { type: 'GIG_ATTESTED', gigId: GIG, attestation }];
const WAITING_ON_FILE: MatterEvent[] = [...SIGNED, { type: 'ESCALATE', gigId: NEXT_GIG }];
const DECLINED: MatterEvent[] = [...WAITING_ON_SIGN, { type: 'GIG_DECLINED', gigId: GIG, memo: 'no' }];
const WITHDRAWN: MatterEvent[] = [{ type: 'WITHDRAW', byClient: true }];

const advance = (command: Partial<AdvanceCommand> = {}): AdvanceCommand => ({ by: 'agent', gigId: GIG, gate: null, ...command });
const attested = (answer: Partial<GigAnswer> = {}): GigAnswer => ({ gigId: GIG, outcome: 'attested', attestation, receipt: 'US 63/000,001', ...answer });
const ineligible = (predicate: 'eligibility' | 'standing' | 'coverage' | 'credential'): SignerVerdict => ({ eligible: false, signerId: attestation.signedBy, predicate, error: `fails ${predicate}`, cure: `mend ${predicate}` });
const GATE_MECHANICS = { code: 'GATE_MECHANICS', args: { listFeeUsd: 300, maxFeeUsd: 250 }, extra: { limit: { maxFeeUsd: 250 } } };

describe('advance', () => {
  it('commits the next Stage Verb from intake, prepare and examine, with its proposer and note', () => {
    const prepared = matter.given().when(decideAdvance, advance({ note: 'facts complete' })).then([{ type: 'ADVANCE', by: 'agent', note: 'facts complete' }]);
    expect(matterStatus(prepared.snapshot())).toBe('prepare');
    expect(prepared.facts).toEqual([{ kind: 'stage', verb: 'prepare', by: 'gate', note: 'facts complete', data: { proposedBy: 'agent' } }]);
    const examined = prepared.when(decideAdvance, advance()).then([ADVANCE]);
    expect(matterStatus(examined.when(decideAdvance, advance()).then([ADVANCE]).snapshot())).toBe('review');
  });

  it('escalates the reserved act of review and of sign as a Gig under the id the command carries', () => {
    const waiting = matter.given(...TO_REVIEW).when(decideAdvance, advance()).then([{ type: 'ESCALATE', gigId: GIG }]);
    expect(matterStatus(waiting.snapshot())).toBe('waiting_on_signer');
    expect(waiting.facts).toEqual([{ kind: 'gig.posted', verb: 'sign', by: 'gate', note: 'reserved act sign escalated to the supply network', data: { reservedAct: 'sign', gigId: GIG } }]);
    const filing = matter.given(...SIGNED).when(decideAdvance, advance({ gigId: NEXT_GIG })).then([{ type: 'ESCALATE', gigId: NEXT_GIG }]);
    expect(filing.facts.map((f) => f.verb)).toEqual(['file']);
  });

  it('holds a B2A2D Matter at intake until the Client consents', () => {
    const downstream = matter.opened({ consumerPattern: 'B2A2D' });
    downstream.given().when(decideAdvance, advance()).then('GATE_CONSENT', { matterId: ID, consumerPattern: 'B2A2D' });
    downstream.given({ type: 'CONSENT', actor: 'client', scope: 'engagement' }).when(decideAdvance, advance()).then([ADVANCE]);
  });

  it('passes on the Gate\'s verdict on an open Matter, after the states that stop it first', () => {
    const refusal = matter.given().when(decideAdvance, advance({ gate: GATE_MECHANICS })).then('GATE_MECHANICS');
    expect(refusal.toBody()).toMatchObject({ code: 'GATE_MECHANICS', rule: 'mechanics', limit: { maxFeeUsd: 250 } });
    matter.given(...WITHDRAWN).when(decideAdvance, advance({ gate: GATE_MECHANICS })).then('MATTER_TERMINAL');
  });

  it('refuses a Matter waiting on its Signer, one needing its Client, and a terminal', () => {
    const waiting = matter.given(...WAITING_ON_SIGN).when(decideAdvance, advance()).then('MATTER_WAITING_ON_SIGNER', { reservedAct: 'sign', gigId: GIG });
    expect(waiting.toBody()).toMatchObject({ matterId: ID, pendingGigId: GIG });
    matter.given(...DECLINED).when(decideAdvance, advance()).then('MATTER_NEEDS_CLIENT_DIRECTION', { matterId: ID });
    const ended = matter.given(...WITHDRAWN).when(decideAdvance, advance()).then('MATTER_TERMINAL', { status: 'withdrawn', consequence: 'a terminal is forever' });
    expect(ended.status).toBe(409);
  });

  it('names the state when the machine takes no advance there and no guard is in the way', () => {
    // An attested filing whose receipt was not sent with it leaves the Matter in `file`.
    const inFile = matter.given(...WAITING_ON_FILE, { type: 'GIG_ATTESTED', gigId: NEXT_GIG, attestation });
    expect(matterStatus(inFile.snapshot())).toBe('file');
    inFile.when(decideAdvance, advance()).then('STATE_REFUSES', { subject: `Matter ${ID} is file`, event: 'ADVANCE' });
  });
});

describe('consent', () => {
  it('journals the Client\'s consent in any open state, and only the Client\'s', () => {
    const consented = matter.given().when(decideConsent, { actor: 'client', scope: 'this Matter' }).then([{ type: 'CONSENT', actor: 'client', scope: 'this Matter' }]);
    expect(consented.snapshot().context.consented).toBe(true);
    expect(matter.given().when(decideConsent, { actor: 'agent', scope: 's' }).then('ACTOR_NOT_CLIENT').toBody()).toMatchObject({ rule: 'consent' });
    matter.given(...WITHDRAWN).when(decideConsent, { actor: 'client', scope: 's' }).then('MATTER_TERMINAL');
  });
});

describe('a Signer\'s answer', () => {
  it('attests the pending sign act, and the filing with its receipt, which fulfils the Matter in the same step', () => {
    const signed = matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ signer: { eligible: true, signerId: attestation.signedBy } })).then([{ type: 'GIG_ATTESTED', gigId: GIG, attestation }]);
    expect(matterStatus(signed.snapshot())).toBe('sign');
    const fulfilled = matter.given(...WAITING_ON_FILE).when(decideGigAnswer, attested({ gigId: NEXT_GIG })).then([
      { type: 'GIG_ATTESTED', gigId: NEXT_GIG, attestation, receipt: 'US 63/000,001' },
      { type: 'FILE_RECEIPT', receipt: 'US 63/000,001' },
    ]);
    expect(fulfilled.facts.map((f) => `${f.kind}:${f.verb}`)).toEqual(['stage:file', 'lifecycle:fulfilled']);
    expect(fulfilled.snapshot().status).toBe('done');
  });

  it('sends back to prepare and declines into needs_client_direction, each worded', () => {
    const back = matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ outcome: 'send_back', memo: 'claims lack basis', attestation: { signedBy: 'sg_1' } })).then([{ type: 'GIG_SENT_BACK', gigId: GIG, memo: 'claims lack basis', signedBy: 'sg_1' }]);
    expect(matterStatus(back.snapshot())).toBe('prepare');
    const declined = matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ outcome: 'declined', memo: 'not for us', attestation: undefined })).then([{ type: 'GIG_DECLINED', gigId: GIG, memo: 'not for us' }]);
    expect(matterStatus(declined.snapshot())).toBe('needs_client_direction');
    matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ outcome: 'send_back', memo: ' ' })).then('GATE_DEFECTS');
    matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ outcome: 'declined' })).then('GATE_MEMO');
  });

  it('refuses an attestation that is missing or malformed', () => {
    const waiting = matter.given(...WAITING_ON_SIGN);
    waiting.when(decideGigAnswer, attested({ attestation: { signedBy: 'sg_1' } })).then('GATE_ATTESTATION', { flaw: 'missing' });
    waiting.when(decideGigAnswer, attested({ attestation: { ...attestation, credentialRef: 'nope' } })).then('GATE_ATTESTATION', { flaw: 'credentialRef', credentialRef: 'nope' });
    waiting.when(decideGigAnswer, attested({ attestation: { ...attestation, artifactHash: 'sha256:xyz' } })).then('GATE_ATTESTATION', { flaw: 'artifactHash' });
  });

  it('refuses an answer for no pending Gig, for another Gig, or to a terminal', () => {
    matter.given(...TO_REVIEW).when(decideGigAnswer, attested()).then('NO_PENDING_GIG', { matterId: ID, status: 'review' });
    const other = matter.given(...WAITING_ON_SIGN).when(decideGigAnswer, attested({ gigId: 'gig_other' })).then('GIG_MISMATCH', { gigId: 'gig_other', pendingGigId: GIG });
    expect(other.toBody()).toMatchObject({ pendingGigId: GIG });
    matter.given(...WITHDRAWN).when(decideGigAnswer, attested()).then('MATTER_TERMINAL');
  });

  it('refuses an answer the Matter would take from a Signer the registry does not count, by the predicate that failed', () => {
    const waiting = matter.given(...WAITING_ON_SIGN);
    for (const [predicate, code] of [['eligibility', 'SIGNER_ELIGIBILITY'], ['standing', 'SIGNER_STANDING'], ['coverage', 'SIGNER_COVERAGE'], ['credential', 'SIGNER_CREDENTIAL']] as const) {
      const refusal = waiting.when(decideGigAnswer, attested({ signer: ineligible(predicate) })).then(code, { error: `fails ${predicate}` });
      expect(refusal.toBody()).toMatchObject({ predicate, cure: `mend ${predicate}`, pendingGigId: GIG });
    }
    // The answer's own flaws come first: a registry verdict does not mask them.
    waiting.when(decideGigAnswer, attested({ outcome: 'declined', signer: ineligible('standing') })).then('GATE_MEMO');
  });
});

describe('the Client\'s direction', () => {
  it('is journaled in place on an open Matter, never blocked', () => {
    const directed = matter.given(...TO_REVIEW).when(decideClientDirection, { instruction: 'go on', gigId: NEXT_GIG }).then([{ type: 'CLIENT_DIRECTION', instruction: 'go on' }]);
    expect(matterStatus(directed.snapshot())).toBe('review');
    expect(directed.facts[0].data).toEqual({ instruction: 'go on', authorizes: null, reopened: false });
  });

  it('after a Declination reopens before the declined act and escalates it again, in one commit', () => {
    const reposted = matter.given(...DECLINED).when(decideClientDirection, { instruction: 'post it again', authorizes: { budgetUsd: 10 }, gigId: NEXT_GIG }).then([
      { type: 'CLIENT_DIRECTION', instruction: 'post it again', authorizes: { budgetUsd: 10 } },
      { type: 'ESCALATE', gigId: NEXT_GIG },
    ]);
    expect(reposted.facts.map((f) => `${f.kind}:${f.verb ?? ''}`)).toEqual(['client.direction:', 'gig.posted:sign']);
    const declinedFiling = matter.given(...WAITING_ON_FILE, { type: 'GIG_DECLINED', gigId: NEXT_GIG, memo: 'no' });
    const refiled = declinedFiling.when(decideClientDirection, { instruction: 'file it', gigId: 'gig_third' }).then([{ type: 'CLIENT_DIRECTION', instruction: 'file it' }, { type: 'ESCALATE', gigId: 'gig_third' }]);
    expect(refiled.snapshot().context.pendingGig).toEqual({ gigId: 'gig_third', reservedAct: 'file' });
  });

  it('is refused on a terminal', () => {
    matter.given(...WITHDRAWN).when(decideClientDirection, { instruction: 'x', gigId: NEXT_GIG }).then('MATTER_TERMINAL');
  });
});

describe('the terminal door', () => {
  it('takes each outcome with its predicate, and names the predicate missing', () => {
    expect(matter.given().when(decideTerminal, { outcome: 'withdrawn', byClient: true, note: 'changed course' }).then([{ type: 'WITHDRAW', byClient: true, note: 'changed course' }]).value).toBe('withdrawn');
    expect(matter.given().when(decideTerminal, { outcome: 'lapsed', confirmedUnresponsiveTwice: true }).then([{ type: 'LAPSE', confirmedUnresponsiveTwice: true }]).value).toBe('lapsed');
    expect(matter.given().when(decideTerminal, { outcome: 'referred_out', referredTo: 'Outside Counsel LLP' }).then([{ type: 'REFER_OUT', referredTo: 'Outside Counsel LLP' }]).value).toBe('referred_out');
    matter.given().when(decideTerminal, { outcome: 'withdrawn' }).then('GATE_ACTOR');
    matter.given().when(decideTerminal, { outcome: 'lapsed' }).then('GATE_PREDICATE', { outcome: 'lapsed' });
    matter.given().when(decideTerminal, { outcome: 'referred_out', referredTo: ' ' }).then('GATE_PREDICATE', { outcome: 'referred_out' });
  });

  it('is refused while a Signer holds the Gig (the machine declares those events there only to refuse them), and on a terminal', () => {
    const waiting = matter.given(...WAITING_ON_SIGN);
    waiting.when(decideTerminal, { outcome: 'withdrawn', byClient: true }).then('MATTER_WAITING_ON_SIGNER');
    waiting.refuses({ type: 'WITHDRAW', byClient: true }).refuses({ type: 'LAPSE', confirmedUnresponsiveTwice: true }).refuses({ type: 'REFER_OUT', referredTo: 'counsel' });
    matter.given(...WITHDRAWN).when(decideTerminal, { outcome: 'lapsed', confirmedUnresponsiveTwice: true }).then('MATTER_TERMINAL');
  });
});

describe('a document record', () => {
  const document = { id: 'doc_spec', name: 'spec.pdf', kind: 'specification', sha256: 'b'.repeat(64) };

  it('is journaled in any open state, and refused once the file is closed', () => {
    const recorded = matter.given(...WAITING_ON_SIGN).when(decideDocument, document).then([{ type: 'RECORD_DOCUMENT', document }]);
    expect(recorded.facts).toEqual([{ kind: 'document.recorded', by: 'agent', data: { document } }]);
    matter.given(...WITHDRAWN).when(decideDocument, document).then('MATTER_TERMINAL', { consequence: 'its file is closed' });
  });
});

describe('the Matter\'s specs', () => {
  it('take every row of the transition table and name every refusal the decider gives', () => {
    expect(matter.uncovered(matterTable, MATTER_REFUSALS)).toEqual({ rows: [], codes: [] });
  });
});
