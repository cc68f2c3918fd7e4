/**
 * The Matter machine's model adapter: which HTTP door each machine event goes
 * through, and what `GET /matters/:id` must show for a snapshot.
 *
 * The doors do not name machine events, so the mapping is by state: the one
 * advance door is ADVANCE in a working stage and ESCALATE in `review`/`sign`;
 * FILE_RECEIPT has no door at all (a filed receipt lands inside the `file`
 * attestation's commit), and a fixture Client's Signer answers inside the
 * escalating request. `settle` tells the oracle about those follow-ups.
 *
 * Gig ids are minted by the service; the model uses placeholders and the
 * handle maps the model's pending Gig to the id the service announced.
 */
import type { SnapshotFrom } from 'xstate';
import { matterMachine, type MatterEvent, type StageVerb } from '../../machines/matter.ts';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { sha256Hex } from '../../src/domain/hash.ts';
import { call, workspace, type TestApp } from '../helpers/app.ts';
import { assertEqual, doorAnswer } from './compare.ts';
import type { ModelAdapter, Trace, Variant } from './runner.ts';

type Snap = SnapshotFrom<typeof matterMachine>;
type Matter = typeof matterMachine;

export interface MatterHandle {
  prefix: string;
  id: string;
  /** The service's id for the model's pending Gig, as the escalating response announced it. */
  gig: string | null;
  client: string | null;
}

/** The model's placeholder for the Gig the service posts; a second id stands for a stale one. */
export const MODEL_GIG = 'gig_model';
export const STALE_GIG = 'gig_model_stale';
const STALE_REAL = 'gig_00000000000000000000000000000000';

const ATTESTATION = { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${sha256Hex('model')}` };
const DOCUMENT = { id: 'doc_model', name: 'Invention disclosure', kind: 'disclosure', sha256: sha256Hex('disclosure') };

/** The stage a reserved act escalates from (the spec: a Matter waiting on `sign` is still in `review`). */
const STAGE_BEFORE = { sign: 'review', file: 'sign' } as const;

export function statusOf(s: Snap): string {
  return typeof s.value === 'string' ? s.value : (s.value as { open: string }).open;
}

function stageOf(s: Snap): string {
  const status = statusOf(s);
  const act = s.context.pendingGig?.reservedAct ?? s.context.declinedAct;
  if (status === 'waiting_on_signer' || status === 'needs_client_direction') return act ? STAGE_BEFORE[act] : 'intake';
  return status;
}

const escalates = (s: Snap) => ['review', 'sign'].includes(statusOf(s));

/** Every door's event from a snapshot, legal and illegal, with bounded payloads. */
export function matterEvents(s: Snap): MatterEvent[] {
  const pending = s.context.pendingGig?.gigId ?? MODEL_GIG;
  const events: MatterEvent[] = [
    escalates(s) ? { type: 'ESCALATE', gigId: MODEL_GIG } : { type: 'ADVANCE', by: 'agent' },
    { type: 'CONSENT', actor: 'client', scope: 'engagement of the Signer network' },
    { type: 'CLIENT_DIRECTION', instruction: 'proceed as drafted' },
    { type: 'RECORD_DOCUMENT', document: DOCUMENT },
    { type: 'WITHDRAW', byClient: true },
    { type: 'WITHDRAW', byClient: false },
    { type: 'LAPSE', confirmedUnresponsiveTwice: true },
    { type: 'LAPSE', confirmedUnresponsiveTwice: false },
    { type: 'REFER_OUT', referredTo: 'Outside Counsel LLP' },
    { type: 'REFER_OUT', referredTo: ' ' },
    { type: 'GIG_ATTESTED', gigId: pending, attestation: ATTESTATION },
    { type: 'GIG_SENT_BACK', gigId: pending, memo: 'claims 3-5 lack antecedent basis', signedBy: FIXTURE.eligibleSigner },
    { type: 'GIG_DECLINED', gigId: pending, memo: 'the instructions do not support this filing', signedBy: FIXTURE.eligibleSigner },
  ];
  if (s.context.pendingGig) {
    events.push(
      { type: 'GIG_ATTESTED', gigId: STALE_GIG, attestation: ATTESTATION },
      { type: 'GIG_SENT_BACK', gigId: STALE_GIG, memo: 'stale', signedBy: FIXTURE.eligibleSigner },
      { type: 'GIG_DECLINED', gigId: STALE_GIG, memo: 'stale', signedBy: FIXTURE.eligibleSigner },
    );
  }
  return events;
}

/**
 * Bounded: the Gig ids, the receipt and the count of attested acts beyond the
 * first do not change what the machine can do next.
 */
export function matterKey(s: Snap): string {
  const c = s.context;
  return JSON.stringify([s.value, c.consumerPattern, c.consented, c.pendingGig?.reservedAct ?? null, c.declinedAct, c.attestedActs > 0]);
}

export const MATTER_VARIANTS: Array<Variant<Matter> & { client: string | null }> = [
  { name: 'B2A', input: { consumerPattern: 'B2A' }, client: null },
  { name: 'B2H2A', input: { consumerPattern: 'B2H2A' }, client: null },
  { name: 'B2A2D', input: { consumerPattern: 'B2A2D' }, client: null },
  { name: 'declining-client', input: { consumerPattern: 'B2A' }, client: FIXTURE.decliningClient },
  { name: 'fulfilling-client', input: { consumerPattern: 'B2A' }, client: FIXTURE.fulfillingClient },
];

const clientOf = (variant: Variant<Matter>) => MATTER_VARIANTS.find((v) => v.name === variant.name)?.client ?? null;

/** What the service does on its own inside the request that carried `event`. */
function settle({ before, event, after }: { before: Snap; event: MatterEvent; after: Snap }, variant: Variant<Matter>): MatterEvent[] {
  const client = clientOf(variant);
  const gigId = after.context.pendingGig?.gigId;
  if (statusOf(after) === 'file') return [{ type: 'FILE_RECEIPT', receipt: `receipt-of:${event.type === 'GIG_ATTESTED' ? event.gigId : MODEL_GIG}` }];
  // A Client's direction after a Declination posts a fresh Gig at once.
  if (event.type === 'CLIENT_DIRECTION' && statusOf(before) === 'needs_client_direction') return [{ type: 'ESCALATE', gigId: MODEL_GIG }];
  if (event.type === 'ESCALATE' && gigId) {
    if (client === FIXTURE.decliningClient) return [{ type: 'GIG_DECLINED', gigId, memo: 'fixture declination', signedBy: FIXTURE.eligibleSigner }];
    if (client === FIXTURE.fulfillingClient) return [{ type: 'GIG_ATTESTED', gigId, attestation: ATTESTATION }];
  }
  return [];
}

const realGig = (handle: MatterHandle, gigId: string) => (gigId === MODEL_GIG && handle.gig ? handle.gig : STALE_REAL);

async function send(app: TestApp, handle: MatterHandle, event: MatterEvent, before: Snap) {
  const url = `${handle.prefix}/matters/${handle.id}`;
  let res;
  switch (event.type) {
    case 'ADVANCE':
    case 'ESCALATE':
      // One door: the service decides between committing the next stage and posting the reserved act.
      if ((event.type === 'ESCALATE') !== escalates(before)) throw new Error(`no door sends ${event.type} from ${statusOf(before)}`);
      res = await call(app, 'POST', `${url}/advance`, {});
      break;
    case 'CONSENT':
      res = await call(app, 'POST', `${url}/consent`, { actor: event.actor, scope: event.scope });
      break;
    case 'CLIENT_DIRECTION':
      res = await call(app, 'POST', `${url}/client-direction`, { instruction: event.instruction });
      break;
    case 'RECORD_DOCUMENT':
      res = await call(app, 'POST', `${url}/documents`, { name: event.document.name, kind: event.document.kind, sha256: event.document.sha256 });
      break;
    case 'WITHDRAW':
      res = await call(app, 'POST', `${url}/terminal`, { outcome: 'withdrawn', byClient: event.byClient });
      break;
    case 'LAPSE':
      res = await call(app, 'POST', `${url}/terminal`, { outcome: 'lapsed', confirmedUnresponsiveTwice: event.confirmedUnresponsiveTwice });
      break;
    case 'REFER_OUT':
      res = await call(app, 'POST', `${url}/terminal`, { outcome: 'referred_out', referredTo: event.referredTo });
      break;
    case 'GIG_ATTESTED':
      res = await call(app, 'POST', `${url}/gig-result`, { gigId: realGig(handle, event.gigId), outcome: 'attested', attestation: event.attestation });
      break;
    case 'GIG_SENT_BACK':
      res = await call(app, 'POST', `${url}/gig-result`, { gigId: realGig(handle, event.gigId), outcome: 'send_back', memo: event.memo, attestation: { signedBy: event.signedBy } });
      break;
    case 'GIG_DECLINED':
      res = await call(app, 'POST', `${url}/gig-result`, { gigId: realGig(handle, event.gigId), outcome: 'declined', memo: event.memo, attestation: { signedBy: event.signedBy } });
      break;
    default:
      throw new Error(`no HTTP door sends ${event.type}: it only lands inside another door's commit`);
  }
  const answer = doorAnswer(res);
  // The Gig the service posted (on an escalating advance or a reopening direction) is the model's pending Gig.
  const escalated = res.body?.escalated?.gigId;
  if (answer.accepted && typeof escalated === 'string') handle.gig = escalated;
  return answer;
}

/** A fact as the journal shows it, against a fact as the machine emitted it. */
const factRow = (f: { kind: string; verb?: string; by: string; actor?: string }) => ({ kind: f.kind, verb: f.verb ?? null, by: f.by, actor: f.actor ?? null });

async function check(app: TestApp, handle: MatterHandle, expected: Snap, trace: Trace<Matter>) {
  const res = await call(app, 'GET', `${handle.prefix}/matters/${handle.id}`);
  if (res.status !== 200) throw new Error(`GET /matters/${handle.id} answered ${res.status} ${res.raw}`);
  const { matter, journal, asset } = res.body;
  const c = expected.context;
  const status = statusOf(expected);
  const want = {
    stage: stageOf(expected),
    status,
    needsClientDirection: status === 'needs_client_direction',
    pendingGigId: c.pendingGig ? realGig(handle, c.pendingGig.gigId) : undefined,
    pendingAct: c.pendingGig?.reservedAct,
    consented: c.consented,
    consumerPattern: c.consumerPattern,
    attestedActs: c.attestedActs,
    version: 1 + trace.emitted.length,
    registryOnFile: c.receipt !== null,
  };
  const got = {
    stage: matter.stage as StageVerb,
    status: matter.status,
    needsClientDirection: matter.needsClientDirection,
    pendingGigId: matter.pendingGigId,
    pendingAct: matter.pendingAct,
    consented: matter.consented,
    consumerPattern: matter.consumerPattern,
    attestedActs: matter.attestedActs,
    version: matter.version,
    registryOnFile: asset.registryId !== null,
  };
  assertEqual(got, want, 'matter view');
  // Every accepted event journaled exactly the one fact the machine emitted for it, in order.
  assertEqual(
    journal.slice(1).map(factRow),
    trace.emitted.map((f) => factRow(f)),
    'journal facts',
  );
  if (journal[0]?.kind !== 'matter.opened') throw new Error(`the journal must open with matter.opened, got ${journal[0]?.kind}`);
}

export const matterAdapter: ModelAdapter<Matter, MatterHandle> = {
  name: 'matter',
  machine: matterMachine,
  variants: MATTER_VARIANTS.map(({ name, input }) => ({ name, input })),
  events: matterEvents,
  serializeState: matterKey,
  settle,
  async open(app, variant) {
    const prefix = await workspace(app);
    const client = clientOf(variant);
    const res = await call(app, 'POST', `${prefix}/matters`, {
      matterType: 'patent_provisional',
      consumerPattern: variant.input.consumerPattern,
      ...(client ? { client: { name: client } } : {}),
    });
    if (res.status !== 201) throw new Error(`POST /matters answered ${res.status} ${res.raw}`);
    return { prefix, id: res.body.matter.id, gig: null, client };
  },
  send,
  check,
};
