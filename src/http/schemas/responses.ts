/**
 * Response schemas. They document; they never filter: the app serializes with
 * plain JSON.stringify, so a field missing from a schema is still sent, and
 * the contract test holds every real response to these schemas with Ajv.
 * Objects stay open (extra fields allowed) so the documents describe what a
 * client may rely on without forbidding additions.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Sha256Hex } from './common.ts';

const Opt = Type.Optional;
const Str = Type.String();
const Int = Type.Integer();
const Num = Type.Number();
const Bool = Type.Boolean();
const Any = Type.Unknown();
const AnyObject = Type.Object({});

/** Every refusal: a worded `error`, a machine `code`, a `type` where the outcome is typed. */
export const ErrorBody = Type.Object(
  {
    type: Opt(Type.Union([Type.Literal('BLOCKED'), Type.Literal('EMPTY')])),
    error: Str,
    code: Str,
    rule: Opt(Str),
    fix: Opt(Str),
  },
  { description: 'a refusal: nothing was written' },
);

/** A typed OK body with the given fields. */
export const Ok = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object({ type: Type.Literal('OK'), ...properties }, description ? { description } : {});

/** A typed EMPTY body: a truthful empty set with a message saying why. */
const Empty = (extra: Record<string, TSchema>) => Type.Object({ type: Type.Literal('EMPTY'), results: Type.Array(Any, { maxItems: 0 }), message: Str, ...extra });

/** A list answer: OK with its results, or a typed EMPTY. */
export const Listed = (item: TSchema, extra: Record<string, TSchema> = {}, description?: string) =>
  Type.Union([Ok({ results: Type.Array(item, { minItems: 1 }), ...extra }), Empty(extra)], description ? { description } : {});

/** A body that is not JSON (HTML, plain text), documented by media type. */
export const Media = (mediaType: string, description: string) => ({ description, content: { [mediaType]: { schema: Type.String() } } });

export const KeyIssued = Ok(
  {
    key: Type.String({ pattern: '^lwk_[A-Za-z0-9_-]{43}$', description: 'the key, shown once' }),
    shownOnce: Type.Literal(true),
    keyId: Str,
    tier: Type.Literal('identified'),
    email: Str,
    building: Opt(Str),
    spendCeilingUsd: Type.Union([Num, Type.Null()]),
    issuedAt: Str,
    use: Type.Object({ header: Str, scheme: Str, example: Str }),
  },
  'the key, shown once; it is stored hashed',
);

const Obj = Type.Object;
const Arr = Type.Array;
const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);
const ref = (description: string) => ({ $ref: 'Refusal#', description });

// Matters and assets.
const MatterView = Obj(
  {
    id: Str,
    stage: Str,
    status: Str,
    rail: Type.Union([Type.Literal('patent'), Type.Literal('state')]),
    matterType: Str,
    jurisdiction: Str,
    assetId: Str,
    needsClientDirection: Bool,
    pendingGigId: Opt(Str),
    client: Obj({ id: Str }),
    consented: Opt(Bool),
  },
  { description: 'a Matter; on keyless reads the Client is only an opaque id' },
);
const JournalEntry = Obj({ seq: Int, at: Str, kind: Str, verb: Opt(Str), by: Str, actor: Opt(Str), note: Opt(Str), data: AnyObject });
const AssetView = Obj({ id: Str, kind: Str, title: Str, registryId: Nullable(Str), statusHistory: Arr(Obj({ status: Str, at: Str, seq: Int, matterId: Str })), docket: Arr(Obj({ seq: Int, at: Str, kind: Str, matterId: Str })), lineage: Arr(Str) });
const DocumentRecord = Obj({ id: Str, matterId: Str, name: Str, kind: Str, sha256: Sha256Hex });
const Committed = Obj({ advanceTo: Str, by: Str });
const Escalated = Obj({
  reservedAct: Str,
  gigId: Str,
  answered: Opt(Str),
  pending: Opt(Type.String({ description: 'the Gig is journaled but the supply network has not taken its post yet: it is retried, and the Matter waits on its Signer meanwhile' })),
}, { description: 'the reserved act, journaled as a Gig (whose id is ours) and then posted to the supply network' });

const MATTER_ERRORS = { 404: ref('no such Matter here'), 409: ref('the Matter waits on a Signer, is terminal, or was stopped by a Declination'), 422: ref('the Gate refuses (naming the rule), or a field is missing or malformed') };

export const MatterResponses = {
  list: { 200: Listed(Obj({ id: Str, status: Str, matterType: Str }), { nextAfter: Opt(Nullable(Int)) }, 'the Matters of this grain, or a typed EMPTY'), 403: ref('BLOCKED: reserved scope') },
  create: { 201: Ok({ matter: MatterView, asset: AssetView }, 'the Matter, opened in intake, and its minted Asset'), 400: ref('matterType missing or not ratified'), 403: ref('BLOCKED: the key\'s spend ceiling'), 422: ref('malformed body or facts; the Gate refuses on mechanics') },
  get: { 200: Ok({ matter: MatterView, asset: AssetView, journal: Arr(JournalEntry) }, 'the Matter, its Asset and its journal'), 404: ref('no such Matter here') },
  advance: { 200: Ok({ matter: MatterView, committed: Opt(Committed), escalated: Opt(Escalated) }, 'the stage committed, or the reserved act escalated as a Gig'), ...MATTER_ERRORS },
  consent: { 200: Ok({ matter: Obj({ id: Str, stage: Str, consented: Type.Literal(true) }), consentSeq: Int }, 'the Client\'s consent, journaled'), ...MATTER_ERRORS },
  gigResult: { 200: Ok({ matter: MatterView }, 'the Matter after the Signer\'s answer'), ...MATTER_ERRORS },
  /** The top level's gig-result is the supply network's signed callback. */
  signedGigResult: {
    200: Ok({ matter: MatterView }, 'the Matter after the Signer\'s answer; a callback whose webhook-id was already accepted is answered as the first time (header Idempotent-Replayed: true) and writes nothing'),
    ...MATTER_ERRORS,
    401: ref('the callback is unsigned, its signature does not match the exact body (SIGNATURE_INVALID), or its timestamp is more than 5 minutes off (SIGNATURE_EXPIRED)'),
    403: ref('BLOCKED: no supply network is connected (LEGALWORK_SUPPLY_SECRET is not set)'),
    503: ref('the Signer registry cannot be read; nothing was applied, send the result again'),
  },
  clientDirection: { 200: Ok({ matter: MatterView, directionSeq: Int, escalated: Opt(Escalated) }, 'the Client\'s direction, journaled'), ...MATTER_ERRORS },
  settlement: { 200: Ok({ matterId: Str, settlement: Obj({ rail: Str, merchantOfRecord: Str, productFeeToCustomerUsd: Num, legalFeeToSignerUsd: Num, attestedActs: Int, perActInsuranceUsd: Num, insuranceTotalUsd: Num, platformNetUsd: Num }) }, 'the settlement of a fulfilled Matter'), 404: ref('no such Matter here'), 409: ref('the Matter is not fulfilled: no filing, no charge') },
  journal: { 200: Ok({ matterId: Str, stage: Str, appendOnly: Type.Literal(true), events: Arr(JournalEntry) }, 'the Matter\'s journal, append-only'), 404: ref('no such Matter here') },
  attestations: { 200: Listed(Obj({ seq: Int, act: Str, attestation: Obj({ signedBy: Str, credentialRef: Str, artifactHash: Str }) }), { matterId: Str }, 'the attestations landed, or a typed EMPTY'), 404: ref('no such Matter here') },
  terminal: { 200: Ok({ matter: MatterView, terminal: Obj({ outcome: Str, seq: Int, at: Str }) }, 'the terminal, forever'), ...MATTER_ERRORS },
  documents: { 200: Listed(DocumentRecord, { matterId: Str }, 'the document records, or a typed EMPTY'), 404: ref('no such Matter here') },
  recordDocument: { 201: Ok({ document: DocumentRecord }, 'the document record (metadata only; no blob door exists)'), ...MATTER_ERRORS },
  order: { 201: Ok({ matterId: Str, status: Str, stage: Str, matter: MatterView, stoppedBy: Opt(AnyObject) }, 'the minted patent-rail Matter, advanced until it waits on a Signer or stops'), 403: ref('BLOCKED: the key\'s spend ceiling'), 422: ref('malformed order') },
  assets: { 200: Listed(Obj({ id: Str, kind: Str, title: Str, lineage: Arr(Str) }), {}, 'the Assets of this grain, or a typed EMPTY') },
  asset: { 200: Ok({ asset: AssetView }, 'the Asset, its status history, docket and lineage'), 404: ref('no such Asset here') },
};

// Sandbox grains.
const GrainView = { id: Str, tier: Str, environment: Type.Literal('sandbox'), openedAt: Str, expiresAt: Str, ttlSeconds: Int, graduation: Obj({ tier: Str, how: Str }) };
const Provenance = Obj({ environment: Type.Literal('sandbox'), synthetic: Type.Literal(true) }, { description: 'synthetic state can never pass for real state' });
const GONE = ref('unknown or expired: a typed EMPTY naming the fix');
const BOUND = ref('BLOCKED: the per-caller creation bound');

export const WorkspaceResponses = {
  open: { 201: Ok({ workspace: Obj(GrainView), provenance: Provenance }, 'the workspace, its TTL and graduation path'), 429: BOUND },
  get: { 200: Ok({ workspace: Obj({ ...GrainView, counts: Obj({ matters: Int, assets: Int, events: Int }) }), provenance: Provenance }, 'tier, TTL, counts, graduation path'), 404: GONE },
  fixtures: { 200: Ok({ fixtures: Arr(Obj({ name: Str, use: Obj({ field: Str, value: Str }), promise: Str }), { minItems: 1 }), provenance: Provenance }, 'the magic fixtures'), 404: GONE },
};

const Offer = Obj({ id: Str, title: Str, priceUsd: Num, matterType: Opt(Str), proofPredicate: Opt(Any) });
const TenantView = Obj({ ...GrainView, offers: Arr(Offer), routing: Obj({ maxFeeUsd: Nullable(Num) }), counts: Obj({ offers: Int, matters: Int, events: Int }) });
export const TenantResponses = {
  open: { 201: Ok({ tenant: TenantView, provenance: Provenance }, 'the tenant, its TTL and graduation path'), 429: BOUND },
  get: { 200: Ok({ tenant: TenantView, provenance: Provenance }, 'Offers, routing, tier, TTL'), 404: GONE },
  offers: { 200: Type.Union([Ok({ tenantId: Str, offers: Arr(Offer), declaredSeq: Int }), Empty({ tenantId: Str, offers: Arr(Offer, { maxItems: 0 }) })], { description: 'the declared Offers' }), 404: GONE, 422: ref('malformed, or a percentage member') },
  routing: { 200: Ok({ tenantId: Str, routing: Obj({ maxFeeUsd: Num }), declaredSeq: Int }, 'the routing mechanics'), 404: GONE, 422: ref('a merits-bearing field or a malformed cap') },
};

const Ceremony = Obj({ instrument: Str }, { description: 'the journaled instrument naming what was granted and who executed it' });
const EnrollmentRow = Obj({ memberId: Str, enrollmentId: Str, status: Str, grants: Arr(Str), eligible: Bool, failingPredicate: Opt(Str), enrolledAt: Str });
const FirmView = Obj({ ...GrainView, enrollments: Obj({ enrolled: Int, revoked: Int }) });
export const FirmResponses = {
  open: { 201: Ok({ firm: FirmView, provenance: Provenance }, 'the firm grain, its TTL and graduation path'), 429: BOUND },
  get: { 200: Ok({ firm: FirmView, provenance: Provenance }, 'enrollment counts, tier, TTL'), 404: GONE },
  enrollments: { 200: Listed(EnrollmentRow, { firmId: Str }, 'current standing per member, or a typed EMPTY'), 404: GONE },
  enroll: { 201: Ok({ act: Str, enrollment: EnrollmentRow, ceremony: Ceremony, then: Opt(Ceremony) }, 'the executed grant'), 404: GONE, 422: ref('unknown member or unknown grant') },
  revoke: { 200: Ok({ enrollment: EnrollmentRow, revocation: AnyObject }, 'the revocation record'), 404: ref('firm unknown, or no enrollment'), 409: ref('already revoked'), 422: ref('unknown member') },
  roster: { 200: Listed(Obj({ memberId: Str, eligible: Bool, status: Str, grants: Arr(Str), facts: AnyObject }), { firmId: Str, probe: AnyObject, blanked: Int }, 'derived rows plus the declared synthetic probe act, or EMPTY naming the fix'), 404: GONE },
  fixtures: { 200: Ok({ fixtures: Arr(Obj({ name: Str, memberId: Str, promise: Str }), { minItems: 1 }) }, 'the fixture members'), 404: GONE },
  routing: { 200: Type.Union([Ok({ firmId: Str }), Empty({ firmId: Str })], { description: 'the declared routing preferences, or a typed EMPTY' }), 404: GONE },
  declareRouting: { 200: Ok({ firmId: Str, routing: AnyObject, declaredSeq: Int }, 'the declared preferences'), 403: ref('BLOCKED: remittanceDesignation firm'), 404: GONE, 422: ref('a merits-bearing or actor-shaped key, malformed mechanics, or an opt-in not countersigned') },
  remittances: { 200: Listed(AnyObject, { firmId: Str }, 'per-member lines plus totals, or a typed EMPTY'), 404: GONE },
};

const ConflictEntry = Obj({ seq: Int, nameHash: Sha256Hex, recordedAt: Str });
const LedgerPage = Listed(ConflictEntry, { appendOnly: Type.Literal(true), ledger: AnyObject, ledgerEntries: Int }, 'the ledger\'s entries, append-only, or a typed EMPTY');
const Appended = Ok({ entry: ConflictEntry, appendOnly: Type.Literal(true), ledger: AnyObject }, 'the entry, appended');
export const ConflictResponses = {
  pooled: { 403: ref('BLOCKED: ledgers are never pooled; the per-practitioner address is named') },
  ledger: { 200: LedgerPage, 403: ref('BLOCKED: the top-level surface needs credential_verified (not live)'), 404: GONE },
  record: { 201: Appended, 403: ref('BLOCKED: the top-level surface needs credential_verified (not live)'), 404: GONE, 422: ref('nameHash is not sha256 hex') },
  firmLedger: { 200: LedgerPage, 404: GONE },
  firmRecord: { 201: Appended, 404: GONE, 422: ref('nameHash is not sha256 hex') },
  prescreen: { 200: Ok({ hit: Bool, matched: Arr(Str), checked: Int, ledgerEntries: Int, caveat: Str }, 'the prescreen verdict over this one ledger'), 404: GONE, 422: ref('nameHashes empty or not sha256 hex') },
};

// Deadline Ladders.
const Monitoring = Obj({ assetId: Str, signerId: Nullable(Str) });
const LadderView = Obj({
  assetId: Str,
  daysUntilDeadline: Int,
  alarm: Type.Union([Type.Literal('nominal'), Type.Literal('vacant')]),
  vacant: Bool,
  monitoring: Monitoring,
  ackRequiredToday: Bool,
  terminalOutcomes: Arr(Str),
  occurrences: Arr(AnyObject),
  acks: Arr(Any),
  resolution: Nullable(AnyObject),
  recurEveryDays: Opt(Int),
  nextOccurrenceInDays: Opt(Nullable(Int)),
});
const NO_LADDER = ref('no ladder for that Asset here');
export const DeadlineResponses = {
  get: { 200: Type.Intersect([Obj({ type: Type.Literal('OK') }), LadderView], { description: 'the ladder view' }), 404: NO_LADDER },
  tick: { 200: Ok({ assetId: Str, daysUntilDeadline: Int, alarm: Str, ackRequiredToday: Bool, events: Arr(Obj({ rung: Str, atDaysRemaining: Int })), seq: Int }, 'days remaining after the tick and the rung events it fired'), 404: NO_LADDER, 409: ref('the ladder refuses the tick') },
  ack: { 200: Ok({ acked: Type.Literal(true), atDaysRemaining: Int, actor: Str, seq: Int }, 'the acknowledgment, journaled'), 404: NO_LADDER, 409: ref('resolved, or no ack due'), 422: ref('no named actor') },
  monitor: { 200: Ok({ monitoring: Monitoring, vacant: Bool, alarm: Str, seq: Int }, 'the Monitoring owner, named'), 404: NO_LADDER, 422: ref('signerId missing') },
  satisfy: { 200: Type.Intersect([Obj({ type: Type.Literal('OK'), seq: Int }), LadderView], { description: 'the ladder after the evidence' }), 404: NO_LADDER, 409: ref('already closed'), 422: ref('no evidenceRef') },
  resolve: { 200: Ok({ resolved: AnyObject, ladder: LadderView, seq: Int }, 'resolved at the terminal rung'), 404: NO_LADDER, 409: ref('not at the terminal rung'), 422: ref('outcome off the enum') },
};

// The event tail.
const TailEntry = Obj({ seq: Int, at: Str, kind: Str, subject: Str, summary: Str, data: AnyObject });
const TailBase = { appendOnly: Type.Literal(true), feed: Str, after: Int, latestSeq: Int };
const TailEmpty = Obj({ type: Type.Literal('EMPTY'), ...TailBase, results: Arr(Any, { maxItems: 0 }), message: Str });
export const EventResponses = {
  tail: {
    200: Type.Union([Obj({ type: Type.Literal('OK'), ...TailBase, results: Arr(TailEntry, { minItems: 1 }), nextAfter: Int }), TailEmpty], { description: 'a page of the tail, or a typed EMPTY saying where it stands (at the top level without a key: naming the fix)' }),
    404: GONE,
    422: ref('feed off the enum'),
  },
  stream: {
    200: {
      description: 'with Accept: text/event-stream, the stream (backlog, then live `grain-event` frames); otherwise the subscription contract as JSON',
      content: {
        'application/json': { schema: Type.Union([Ok({ latestSeq: Int, subscription: Obj({ path: Str, accept: Type.Literal('text/event-stream'), feed: Str, after: Int }) }), TailEmpty], { description: 'the subscription contract; at the top level without a key, a typed EMPTY naming the fix (there is nothing of yours to follow)' }) },
        'text/event-stream': { schema: Type.String({ description: 'frames: event grain-event, id <seq>, data <tail entry JSON>' }) },
      },
    },
    404: GONE,
    422: ref('feed off the enum, or a malformed Last-Event-ID'),
  },
};

export { Any, Bool, Int, Num, Str };
