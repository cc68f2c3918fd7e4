/**
 * Response schemas of each operation, built from the named components
 * (`components.ts`). They write the replies: Fastify compiles each into a
 * serializer that sends exactly the declared fields, and the reply check
 * (`reply-check.ts`) fails a test on any field a schema does not declare.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Any, Arr, At, Bool, EXAMPLE, Int, Nullable, Num, Opt, Sha256Hex, Str, StrEx, Strict } from '../../schemas/common.ts';
import { FIXTURE_LISTING } from '../../domain/fixtures.ts';
import { KEEP_ALIVE_COMMENT, SSE_EVENT_NAME } from '../../domain/sse-wire.ts';
import { FIRM_FIXTURE_LISTING, ROSTER_PROBE } from '../../domain/firm-members.ts';
import { refused, type RefusalCode } from '../declared-refusals.ts';
import {
  Asset, Attestation, Ceremony, DeadlineLadder, DocumentRecord, Enrollment, Escalation, Feed, Firm, Grant, LadderFields,
  LadderResolution, Matter, MatterType, Monitoring, Rail, Offer, FirmRouting, Provenance, Refusal, ReservedAct, Settlement, Stage, TailEntry, Tenant, TenantRouting, Workspace, MatterStatus, JournalEntry, WebhookAttempt, WebhookEndpoint, WebhookEventType, ref,
} from '../../schemas/components.ts';
import { Inspection } from '../../schemas/inspection.ts';
import { OrUnreadable, OrUnreadableEntry } from '../../schemas/unreadable.ts';

const Obj = Strict;

/** The ids an answer names beside its records, with the shared examples (common.ts `EXAMPLE`). */
const MatterId = StrEx(EXAMPLE.matter);
const AssetId = StrEx(EXAMPLE.asset);
const TenantId = StrEx(EXAMPLE.tenant);
const FirmId = StrEx(EXAMPLE.firm);
const MemberId = StrEx(EXAMPLE.member);

/** Inside a sandbox grain every JSON answer carries the grain's stamp. */
const Stamp = { provenance: Opt(ref(Provenance)) };

/** A typed OK body with the given fields. */
export const Ok = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Strict({ type: Type.Literal('OK'), ...properties, ...Stamp }, description ? { description } : {});

/** A typed EMPTY body: a truthful empty set with a message saying why. */
const Empty = (extra: Record<string, TSchema>) => Strict({ type: Type.Literal('EMPTY'), results: Arr(Any, { maxItems: 0 }), message: Str, ...extra, ...Stamp });

/** A list answer: OK with its results, or a typed EMPTY. */
export const Listed = (item: TSchema, extra: Record<string, TSchema> = {}, description?: string) =>
  Type.Union([Ok({ results: Arr(item, { minItems: 1 }), ...extra }), Empty(extra)], description ? { description } : {});

/** A body that is not JSON (HTML, plain text), documented by media type. */
export const Media = (mediaType: string, description: string) => ({ description, content: { [mediaType]: { schema: Type.String() } } });


/** A page cursor: the `after` to ask for next, or null at the end. */
const NextAfter = Nullable(Type.Integer({ description: 'pass as `after` for the next page; null: this was the last' }));

/** One operation's documentation: what it is for, what it does, and every answer it gives (refusals with their codes). */
export const door = <R extends Record<string, unknown>>(summary: string, description: string, response: R) => ({ summary, description, response });

const NO_MATTER = refused('no such Matter here (another key\'s Matter answers the same)', ['MATTER_NOT_FOUND']);
const MATTER_STATE = refused('the Matter waits on a Signer or on the Client\'s direction, or is terminal: this door does not apply now', ['MATTER_WAITING_ON_SIGNER', 'MATTER_NEEDS_CLIENT_DIRECTION', 'MATTER_TERMINAL', 'STATE_REFUSES']);
const MOVED_ON = refused('If-Match names a version the record has moved on from (`currentVersion` says where it is): nothing written', ['VERSION_MISMATCH']);
/** A Signer's answer the Matter is not waiting for. */
const NOT_AWAITED = refused('no Gig is pending, the Gig is not the pending one, or the Matter is terminal', ['NO_PENDING_GIG', 'GIG_MISMATCH', 'MATTER_TERMINAL', 'MATTER_NEEDS_CLIENT_DIRECTION', 'STATE_REFUSES']);
/** What the Gate refuses in a Signer's answer: the Attestation, or the Signer. */
const ANSWER_REFUSED: RefusalCode[] = ['GATE_ATTESTATION', 'GATE_DEFECTS', 'GATE_MEMO', 'GATE_PREDICATE', 'SIGNER_ELIGIBILITY', 'SIGNER_STANDING', 'SIGNER_COVERAGE', 'SIGNER_CREDENTIAL'];
const UNREADABLE = refused('the Matter\'s stream cannot be read by today\'s machine', ['ENTITY_UNREADABLE']);
/** What every Matter write may refuse beside its own: no such Matter, a state the door does not apply in, a stale If-Match, an unreadable stream. */
const MATTER_WRITE = { 404: NO_MATTER, 409: MATTER_STATE, 412: MOVED_ON, 500: UNREADABLE };

export const MatterDoors = {
  list: door('List the Matters', 'The Matters of this grain, oldest first, paged by `after` (a Matter\'s seq) and `limit`. At the top level, only the calling key\'s own Matters; without a key, a typed EMPTY naming how to get one.', {
    200: Listed(OrUnreadable(ref(Matter)), { nextAfter: Opt(NextAfter) }, 'the Matters of this grain (one whose stream cannot be read is an `UnreadableItem` in its place), or a typed EMPTY'),
    403: refused('BLOCKED: a reserved listing scope (`scope`) is not served', ['SCOPE_RESERVED']),
  }),
  create: door('Open a Matter', 'Opens a Matter of a ratified matter type in `intake`, mints its Asset and opens the Asset\'s Deadline Ladder, in one journal transaction. The Gate checks the mechanics (fee cap, jurisdictions) and refuses naming the rule; nothing is written on a refusal.', {
    201: Ok({ matter: ref(Matter), asset: ref(Asset) }, 'the Matter, opened in intake, and its minted Asset'),
    400: refused('`matterType` is missing or not ratified (the ratified list is in `ratified`)', ['MATTER_TYPE_NOT_RATIFIED']),
    422: refused('the Gate refuses on mechanics, or the rail does not match the matter type', ['GATE_MECHANICS', 'RAIL_MISMATCH']),
  }),
  get: door('Read a Matter', 'The Matter, its Asset (with its Deadline Ladder) and its append-only journal. Keyless: the id is the capability.', {
    200: Ok({ matter: ref(Matter), asset: ref(Asset), journal: Arr(ref(JournalEntry)) }, 'the Matter, its Asset and its journal'),
    404: NO_MATTER,
    500: UNREADABLE,
  }),
  advance: door('Advance a Matter', 'Moves the Matter to its next stage when the Gate allows it; at `review` and `sign` the next act is reserved to a licensed human, so it is journaled as a Gig and posted to the supply network, and the Matter waits on its Signer. The body is optional. Send `If-Match: "<version>"` to advance only a Matter still where you read it.', {
    200: Ok({ matter: ref(Matter), committed: Opt(Obj({ advanceTo: ref(Stage), by: Str })), escalated: Opt(ref(Escalation)) }, 'the stage committed, or the reserved act escalated as a Gig'),
    ...MATTER_WRITE,
    422: refused('the Gate refuses (naming the rule): consent missing, merits past a mandate, mechanics', ['GATE_CONSENT', 'GATE_MERITS', 'GATE_MECHANICS']),
  }),
  consent: door('Record the Client\'s consent', 'Journals the Client\'s consent to this Matter (B2A2D Matters need it before they pass intake). Only the Client speaks through this door: `actor` must be `client`.', {
    200: Ok({ matter: Obj({ id: MatterId, stage: ref(Stage), consented: Type.Literal(true) }), consentSeq: Int }, 'the Client\'s consent, journaled'),
    ...MATTER_WRITE,
    422: refused('the actor is not the Client', ['ACTOR_NOT_CLIENT', 'GATE_ACTOR']),
  }),
  gigResult: door('Answer a Gig (a Signer\'s result)', 'The supply network\'s answer to the Matter\'s pending Gig: attested (with the Signer\'s Attestation, checked by the Gate, which never authors one), sent back, or declined.', {
    200: Ok({ matter: ref(Matter) }, 'the Matter after the Signer\'s answer'),
    404: NO_MATTER,
    409: NOT_AWAITED,
    422: refused('the Gate refuses the Attestation or the Signer', ANSWER_REFUSED),
    412: MOVED_ON,
    500: UNREADABLE,
  }),
  /** The top level's gig-result is the supply network's signed callback. */
  signedGigResult: door('The supply network\'s signed callback: a Signer\'s result', 'At the top level a Signer\'s answer arrives only as the supply network\'s callback, signed per Standard Webhooks with the network\'s secret; an API key never stands in for the signature. A callback whose webhook-id was already accepted is answered as the first time, with `Idempotent-Replayed: true`, and writes nothing.', {
    200: Ok({ matter: ref(Matter) }, 'the Matter after the Signer\'s answer'),
    401: refused('the callback is unsigned, its signature does not match the exact body, or its timestamp is more than 5 minutes off', ['SIGNATURE_INVALID', 'SIGNATURE_EXPIRED']),
    403: refused('BLOCKED: no supply network is connected (LEGALWORK_SUPPLY_SECRET is not set)', ['SUPPLY_NETWORK_NOT_CONNECTED']),
    404: NO_MATTER,
    409: NOT_AWAITED,
    422: refused('the Gate refuses the Attestation or the Signer, or the webhook-id was used for another body', [...ANSWER_REFUSED, 'WEBHOOK_ID_REUSED']),
    500: UNREADABLE,
    503: refused('the Signer registry cannot be read; nothing was applied, send the result again', ['SIGNER_REGISTRY_UNAVAILABLE']),
  }),
  clientDirection: door('Give the Client\'s direction', 'After a Signer declines, the Matter waits on the Client: an instruction journaled here reopens the declined act (a new Gig) or records the Client\'s choice.', {
    200: Ok({ matter: ref(Matter), directionSeq: Int, escalated: Opt(ref(Escalation)) }, 'the Client\'s direction, journaled'),
    ...MATTER_WRITE,
    422: refused('the instruction is empty, or the actor is not the Client', ['INSTRUCTION_MISSING', 'ACTOR_NOT_CLIENT']),
  }),
  settlement: door('Read a fulfilled Matter\'s settlement', 'Who is paid what once the Matter is fulfilled: the Product Fee, the Signer\'s Legal Fee per attested act, insurance and the platform\'s net. No filing, no charge: before `fulfilled` it is a 409.', {
    200: Ok({ matterId: MatterId, settlement: ref(Settlement) }, 'the settlement of a fulfilled Matter'),
    404: NO_MATTER,
    409: refused('the Matter is not fulfilled: no filing, no charge', ['MATTER_NOT_FULFILLED']),
    500: UNREADABLE,
  }),
  journal: door('Read a Matter\'s journal', 'Every fact of the Matter, in order, append-only.', {
    200: Ok({ matterId: MatterId, stage: ref(Stage), appendOnly: Type.Literal(true), events: Arr(ref(JournalEntry)) }, 'the Matter\'s journal, append-only'),
    404: NO_MATTER,
    500: UNREADABLE,
  }),
  attestations: door('List a Matter\'s Attestations', 'The Signers\' Attestations that landed on the Matter, one per attested reserved act.', {
    200: Listed(Obj({ seq: Int, act: ref(ReservedAct), attestation: ref(Attestation) }), { matterId: MatterId }, 'the attestations landed, or a typed EMPTY'),
    404: NO_MATTER,
    500: UNREADABLE,
  }),
  terminal: door('End a Matter', 'Ends the Matter for good (withdrawn, lapsed or referred out) when its Gate predicate holds; a terminal is forever.', {
    200: Ok({ matter: ref(Matter), terminal: Obj({ outcome: StrEx('withdrawn'), seq: Int, at: At() }) }, 'the terminal, forever'),
    ...MATTER_WRITE,
    422: refused('the terminal\'s predicate does not hold (naming it), or the actor may not end it', ['GATE_PREDICATE', 'GATE_ACTOR', 'ACTOR_NOT_CLIENT']),
  }),
  documents: door('List a Matter\'s documents', 'The document records journaled on the Matter: metadata and a sha256, never the bytes.', {
    200: Listed(ref(DocumentRecord), { matterId: MatterId }, 'the document records, or a typed EMPTY'),
    404: NO_MATTER,
    500: UNREADABLE,
  }),
  recordDocument: door('Record a document on a Matter', 'Journals a document\'s name, kind and sha256 on the Matter; no blob is stored or accepted.', {
    201: Ok({ document: ref(DocumentRecord) }, 'the document record (metadata only; no blob door exists)'),
    ...MATTER_WRITE,
  }),
  order: door('Order a provisional filing', 'Mints a patent-rail provisional Matter and advances it until it waits on a Signer or a refusal stops it (then `stoppedBy` names the refusal). A paid act: it counts against the key\'s spend ceiling.', {
    201: Ok({ matterId: MatterId, status: ref(MatterStatus), stage: ref(Stage), matter: ref(Matter), stoppedBy: Opt(ref(Refusal, 'the refusal that stopped the order before it reached a Signer')) }, 'the minted patent-rail Matter, advanced until it waits on a Signer or stops'),
    422: refused('the Gate refuses on mechanics', ['GATE_MECHANICS']),
  }),
  assets: door('List the Assets', 'The Assets of this grain (each Matter mints one), oldest first, paged by `after` (an Asset\'s seq) and `limit` as the Matters are.', {
    200: Listed(OrUnreadable(Obj({ id: AssetId, kind: StrEx('patent_application'), title: StrEx('Self-folding map'), lineage: Arr(MatterId) })), { nextAfter: Opt(NextAfter) }, 'a page of the Assets of this grain (one whose stream cannot be read is an `UnreadableItem` in its place), or a typed EMPTY'),
  }),
  asset: door('Read an Asset', 'The Asset, its status history, its docket, its lineage of Matters and its Deadline Ladder. Keyless: the id is the capability.', {
    200: Ok({ asset: ref(Asset) }, 'the Asset, its status history, docket and lineage'),
    404: refused('no such Asset here', ['ASSET_NOT_FOUND']),
    500: UNREADABLE,
  }),
};

// Sandbox grains. (An unknown or expired grain's 404 is implied by the grain prefix: declared-refusals.ts.)
const BOUND = refused('BLOCKED: the per-caller creation bound (Retry-After says when)', ['CREATION_BOUND']);
const GRAIN_OPENED = (kind: string) => `Opens a keyless, synthetic, TTL-bound ${kind} grain: everything inside it is rehearsal state that can never pass for real (each answer carries \`provenance\`). Bounded per caller address.`;

export const WorkspaceDoors = {
  open: door('Open a sandbox workspace', GRAIN_OPENED('workspace'), { 201: Ok({ workspace: ref(Workspace) }, 'the workspace, its TTL and graduation path'), 429: BOUND }),
  get: door('Read a sandbox workspace', 'The workspace\'s tier, TTL, counts and graduation path.', { 200: Ok({ workspace: ref(Workspace) }, 'tier, TTL, counts, graduation path') }),
  fixtures: door('List the workspace\'s magic fixtures', 'The fixture names that make a workspace behave deterministically (a Client whose Signer always attests, one who declines, an ack-due ladder).', { 200: Ok({ fixtures: Arr(Obj({ name: Str, use: Obj({ field: Str, value: Str }), promise: Str }), { minItems: 1, examples: [FIXTURE_LISTING.slice(0, 1)] }) }, 'the magic fixtures') }),
};

const Declared = { declaredSeq: Opt(Nullable(Type.Integer({ description: 'the seq of the declaration in force; null: none yet' }))), declaredAt: Opt(Nullable(Str)) };
export const TenantDoors = {
  open: door('Open a sandbox tenant', GRAIN_OPENED('tenant'), { 201: Ok({ tenant: ref(Tenant) }, 'the tenant, its TTL and graduation path'), 429: BOUND }),
  get: door('Read a sandbox tenant', 'The tenant\'s Offers, routing mechanics, tier and TTL.', { 200: Ok({ tenant: ref(Tenant) }, 'Offers, routing, tier, TTL') }),
  offers: door('Declare the tenant\'s Offers', 'Replaces the tenant\'s Offers: each a flat price for a matter type. Percentages of an outcome are refused (flat fees only).', {
    200: Type.Union([Ok({ tenantId: TenantId, offers: Arr(ref(Offer)), ...Declared }), Empty({ tenantId: TenantId, offers: Arr(ref(Offer), { maxItems: 0 }), ...Declared })], { description: 'the declared Offers' }),
    422: refused('a duplicate Offer id, or a percentage price', ['DUPLICATE_OFFER', 'PERCENTAGE_PRICE', 'OFFER_PRICE']),
  }),
  routing: door('Declare the tenant\'s routing', 'Declares the routing mechanics (a fee cap, the jurisdictions served); merits-bearing fields are refused.', {
    200: Ok({ tenantId: TenantId, routing: Nullable(ref(TenantRouting)), ...Declared }, 'the routing mechanics'),
    422: refused('a merits-bearing field, or a percentage', ['MERITS_BEARING_KEY', 'PERCENTAGE_PRICE']),
  }),
};

const Routing = ref(FirmRouting);
export const FirmDoors = {
  open: door('Open a sandbox firm', GRAIN_OPENED('firm'), { 201: Ok({ firm: ref(Firm) }, 'the firm grain, its TTL and graduation path'), 429: BOUND }),
  get: door('Read a sandbox firm', 'The firm\'s enrollment counts, tier and TTL.', { 200: Ok({ firm: ref(Firm) }, 'enrollment counts, tier, TTL') }),
  enrollments: door('List the firm\'s Enrollments', 'Each member\'s current Enrollment and standing.', { 200: Listed(ref(Enrollment), { firmId: FirmId }, 'current standing per member, or a typed EMPTY') }),
  enroll: door('Enroll a member', 'A member executes grants to the firm (roster, remittance, routing): a new Enrollment, or an amendment adding grants. The ceremony is journaled.', {
    201: Ok({ act: Type.Union([Type.Literal('enrolled'), Type.Literal('amended')]), enrollment: ref(Enrollment), ceremony: ref(Ceremony), then: Opt(ref(Ceremony)) }, 'the executed grant'),
    409: refused('the member already holds every grant asked', ['NOTHING_TO_AMEND']),
    412: MOVED_ON,
    422: refused('an unknown member, an unknown grant, or no grant', ['UNKNOWN_MEMBER', 'UNKNOWN_GRANT', 'NO_GRANT']),
  }),
  revoke: door('Revoke a member\'s Enrollment', 'The member revokes its grants; the revocation is journaled and the roster blanks the row.', {
    200: Ok({ enrollment: ref(Enrollment), revocation: ref(Ceremony) }, 'the revocation record'),
    404: refused('the member holds no Enrollment here', ['ENROLLMENT_NOT_FOUND']),
    409: refused('already revoked', ['ALREADY_REVOKED']),
    412: MOVED_ON,
    422: refused('an unknown member', ['UNKNOWN_MEMBER']),
  }),
  roster: door('Read the firm\'s roster', 'Rows derived from members\' live Enrollments with the roster grant, each with its eligibility, plus the declared synthetic probe act.', {
    200: Listed(
      Obj({ memberId: MemberId, eligible: Bool, status: StrEx('enrolled'), grants: Arr(ref(Grant)), facts: Obj({ credentialLive: Bool, standingFresh: Bool, coverageInForce: Bool }), failingPredicate: Opt(Str) }),
      { firmId: FirmId, probe: Obj({ act: Str, effect: Str, synthetic: Type.Literal(true), checks: Arr(Str), source: Str, registerConsulted: Bool, scored: Bool }, { examples: [ROSTER_PROBE] }), blanked: Int, fix: Opt(Str) },
      'derived rows plus the declared synthetic probe act, or EMPTY naming the fix',
    ),
  }),
  fixtures: door('List the firm\'s fixture members', 'The synthetic members a firm grain can enroll, with what each always does.', { 200: Ok({ fixtures: Arr(Obj({ name: Str, memberId: Str, promise: Str }), { minItems: 1, examples: [FIRM_FIXTURE_LISTING.slice(0, 1)] }) }, 'the fixture members') }),
  routing: door('Read the firm\'s routing', 'The routing preferences in force, or a typed EMPTY.', { 200: Type.Union([Ok({ firmId: FirmId, routing: Routing, ...Declared }), Empty({ firmId: FirmId })], { description: 'the declared routing preferences, or a typed EMPTY' }) }),
  declareRouting: door('Declare the firm\'s routing', 'Declares routing mechanics; merits-bearing or actor-shaped keys are refused, remittance to the firm is BLOCKED, and an opt-in needs the member\'s countersignature.', {
    200: Ok({ firmId: FirmId, routing: Routing, ...Declared }, 'the declared preferences'),
    403: refused('BLOCKED: remittance to the firm', ['REMITTANCE_TO_FIRM']),
    422: refused('a merits-bearing or actor-shaped key, malformed mechanics, or an opt-in not countersigned', ['MERITS_BEARING_KEY', 'ACTOR_SHAPED_KEY', 'PERCENTAGE_PRICE', 'MALFORMED_MECHANICS', 'OPT_IN_NOT_COUNTERSIGNED']),
  }),
  remittances: door('Read the firm\'s remittances', 'Per-member Legal Fee lines for members who granted remittance, aggregated only: each line\'s Merchant of Record is the platform or the individual Signer, never the firm.', {
    200: Type.Union([
      Ok({
        firmId: FirmId,
        results: Arr(Obj({ memberId: MemberId, lines: Arr(Obj({ matterType: ref(MatterType), rail: ref(Rail), attestedActs: Int, legalFeePerActUsd: Num, legalFeeUsd: Num, merchantOfRecord: Str })), attestedActs: Int, legalFeeUsd: Num }), { minItems: 1 }),
        totals: Obj({ members: Int, attestedActs: Int, legalFeeUsd: Num }),
        merchantOfRecord: StrEx('aggregation only: each line\'s Merchant of Record is the platform (patent rail) or the individual Signer (state rail), never the firm'),
        synthetic: Type.Literal(true),
      }),
      Empty({ firmId: FirmId }),
    ], { description: 'per-member lines plus totals, or a typed EMPTY' }),
  }),
};

const ConflictEntry = Obj({ seq: Int, nameHash: Sha256Hex, recordedAt: At() });
const Ledger = Obj({ practitioner: Opt(Str), firm: Opt(Str) }, { description: 'whose ledger: one practitioner\'s, or one firm\'s' });
const LedgerPage = Listed(ConflictEntry, { appendOnly: Type.Literal(true), ledger: Ledger, ledgerEntries: Int, nextAfter: Opt(NextAfter) }, 'the ledger\'s entries, append-only, or a typed EMPTY');
const Appended = Ok({ entry: ConflictEntry, appendOnly: Type.Literal(true), ledger: Ledger }, 'the entry, appended');
const NOT_A_HASH = refused('nameHash is not sha256 hex: hash the name yourself, the service never sees it', ['NAME_HASH_NOT_SHA256']);
const UNVERIFIED = refused('BLOCKED: the top-level surface needs credential_verified (not live)', ['CREDENTIAL_VERIFICATION_REQUIRED']);
const HASH_ONLY = 'Hash-only: entries are sha256 digests of names, never names.';
export const ConflictDoors = {
  pooled: door('The pooled conflicts ledger (never served)', 'Ledgers are never pooled across practitioners: this answers BLOCKED naming the per-practitioner address.', { 403: refused('BLOCKED: ledgers are never pooled', ['CONFLICTS_NOT_POOLED']) }),
  ledger: door('Read a practitioner\'s conflicts ledger', `One practitioner's append-only ledger, paged. ${HASH_ONLY}`, { 200: LedgerPage, 403: UNVERIFIED }),
  record: door('Append to a practitioner\'s conflicts ledger', `Appends a name hash to one practitioner's ledger. ${HASH_ONLY}`, { 201: Appended, 403: UNVERIFIED, 422: NOT_A_HASH }),
  firmLedger: door('Read the firm\'s conflicts ledger', `The firm's own append-only ledger, paged. ${HASH_ONLY}`, { 200: LedgerPage }),
  firmRecord: door('Append to the firm\'s conflicts ledger', `Appends a name hash to the firm's ledger. ${HASH_ONLY}`, { 201: Appended, 422: NOT_A_HASH }),
  prescreen: door('Prescreen names against the firm\'s ledger', `Checks name hashes against this one ledger: a hit or not, which matched. ${HASH_ONLY}`, {
    200: Ok({ hit: Bool, matched: Arr(Str), checked: Int, ledger: Ledger, ledgerEntries: Int, caveat: StrEx('a prescreen of this one ledger; it never replaces the Signer\'s own full conflicts check') }, 'the prescreen verdict over this one ledger'),
    422: refused('nameHashes empty or not sha256 hex', ['NAME_HASHES_EMPTY', 'NAME_HASH_NOT_SHA256']),
  }),
};

// Deadline Ladders.
const NO_LADDER = refused('no ladder for that Asset here', ['LADDER_NOT_FOUND']);
const LADDER_UNREADABLE = refused('the ladder\'s stream cannot be read by today\'s machine', ['ENTITY_UNREADABLE']);
const Alarm = Type.Union([Type.Literal('nominal'), Type.Literal('vacant')]);
const EXPLICIT = 'Ladders never move on wall time: only explicit ticks move them.';
export const DeadlineDoors = {
  get: door('Read a Deadline Ladder', `The Asset's ladder: days to the deadline, the rung, who monitors it, acks and occurrences. Keyless: the Asset id is the capability. ${EXPLICIT}`, { 200: Ok(LadderFields, 'the ladder view'), 404: NO_LADDER, 500: LADDER_UNREADABLE }),
  tick: door('Tick a Deadline Ladder', `Moves the ladder the given days toward its deadline and fires the rungs it crosses (each a reminder event). ${EXPLICIT}`, {
    200: Ok({ assetId: AssetId, daysUntilDeadline: Int, alarm: Alarm, ackRequiredToday: Bool, events: Arr(Obj({ rung: Str, atDaysRemaining: Int, kind: Str, seq: Int, deliverTo: Opt(Str) })), seq: Int }, 'days remaining after the tick and the rung events it fired'),
    404: NO_LADDER,
    412: MOVED_ON,
    409: refused('the ladder refuses the tick: resolved, or past the deadline', ['TICK_REFUSED', 'LADDER_RESOLVED']),
    500: LADDER_UNREADABLE,
  }),
  ack: door('Acknowledge today\'s rung', 'A named human acknowledges the daily rung in the final week.', {
    200: Ok({ acked: Type.Literal(true), atDaysRemaining: Int, actor: StrEx('Ada Lovelace'), seq: Int }, 'the acknowledgment, journaled'),
    404: NO_LADDER,
    412: MOVED_ON,
    409: refused('resolved, or no ack due today', ['NO_ACK_DUE', 'LADDER_RESOLVED']),
    422: refused('no named actor', ['ACTOR_MISSING']),
    500: LADDER_UNREADABLE,
  }),
  monitor: door('Name the ladder\'s monitoring owner', 'Names who watches the ladder (a Signer id, or `platform`); until then its alarm is vacant.', {
    200: Ok({ monitoring: ref(Monitoring), vacant: Bool, alarm: Alarm, seq: Int }, 'the Monitoring owner, named'),
    404: NO_LADDER,
    412: MOVED_ON,
    409: refused('the ladder is resolved', ['LADDER_RESOLVED']),
    500: LADDER_UNREADABLE,
  }),
  satisfy: door('Satisfy a Deadline Ladder', 'Closes the open occurrence by evidence (a receipt, a docket entry); a recurring ladder opens its next occurrence.', {
    200: Ok({ ...LadderFields, seq: Int }, 'the ladder after the evidence'),
    404: NO_LADDER,
    412: MOVED_ON,
    409: refused('already closed', ['LADDER_RESOLVED']),
    422: refused('no evidenceRef', ['EVIDENCE_MISSING']),
    500: LADDER_UNREADABLE,
  }),
  resolve: door('Resolve a ladder at its terminal rung', 'Closes the ladder for good at its terminal rung with one of the four terminal outcomes.', {
    200: Ok({ resolved: Nullable(ref(LadderResolution)), ladder: ref(DeadlineLadder), seq: Int }, 'resolved at the terminal rung'),
    404: NO_LADDER,
    412: MOVED_ON,
    409: refused('not at the terminal rung, or already resolved', ['NOT_AT_TERMINAL_RUNG', 'LADDER_RESOLVED']),
    500: LADDER_UNREADABLE,
  }),
};

// The event tail.
const TailBase = { appendOnly: Type.Literal(true), feed: ref(Feed), after: Int, latestSeq: Int };
const TailEmpty = Empty({ ...TailBase, nextAfter: Opt(NextAfter) });
const Subscription = Obj({
  path: StrEx(`/workspaces/${EXAMPLE.workspace}/events/stream`),
  method: Type.Literal('GET'),
  accept: Type.Literal('text/event-stream'),
  feed: ref(Feed),
  after: Int,
  feeds: Arr(ref(Feed)),
  order: StrEx('the backlog after the cursor first, then each new event as it commits, in seq order'),
  frame: Obj({ event: StrEx(SSE_EVENT_NAME), id: StrEx('the event seq'), data: StrEx('the tail entry as JSON') }),
  resume: StrEx('reconnect with the header Last-Event-ID: <last seq received>, or with ?after=<seq>'),
  keepAlive: Obj({ comment: StrEx(KEEP_ALIVE_COMMENT), everySeconds: Num }),
  slowSubscribers: StrEx('a subscriber more than 1048576 bytes behind is disconnected rather than buffered; it resumes with Last-Event-ID'),
  example: StrEx(`curl -N -H 'Accept: text/event-stream' 'http://127.0.0.1:3000/workspaces/${EXAMPLE.workspace}/events/stream?feed=timeline&after=0'`),
}, { description: 'how to follow the tail over Server-Sent Events' });
export const EventDoors = {
  tail: door('Page the event tail', 'The grain\'s events in seq order after `after`, on one feed. At the top level, only the calling key\'s records; without a key, a typed EMPTY naming the fix.', {
    200: Type.Union([Ok({ ...TailBase, results: Arr(OrUnreadableEntry(ref(TailEntry)), { minItems: 1 }), nextAfter: Int }), TailEmpty], { description: 'a page of the tail (an event whose body cannot be read is an `UnreadableEntry` in its place), or a typed EMPTY saying where it stands (at the top level without a key: naming the fix)' }),
  }),
  stream: door('Follow the event tail (Server-Sent Events)', 'With `Accept: text/event-stream`, the backlog after the cursor and then each event as it commits, as `grain-event` frames; resume with `Last-Event-ID`. Otherwise the subscription contract as JSON.', {
    200: {
      description: 'with Accept: text/event-stream, the stream (backlog, then live `grain-event` frames); otherwise the subscription contract as JSON',
      content: {
        'application/json': { schema: Type.Union([Ok({ latestSeq: Int, subscription: Subscription }), TailEmpty], { description: 'the subscription contract; at the top level without a key, a typed EMPTY naming the fix (there is nothing of yours to follow)' }) },
        'text/event-stream': { schema: Type.String({ description: 'frames: event grain-event, id <seq>, data <tail entry JSON> (a TailEntry, or an UnreadableEntry in the place of an event whose body does not read)' }) },
      },
    },
    422: refused('a malformed Last-Event-ID', ['INVALID_LAST_EVENT_ID']),
    429: refused('BLOCKED: a per-caller limit: the open event streams one caller may hold, or the request rate (Retry-After says when)', ['STREAM_CAP']),
  }),
};


const NOT_YOURS = refused('no such endpoint among yours (at the top level, your key\'s; in a sandbox grain, the grain\'s)', ['WEBHOOK_NOT_FOUND']);
export const WebhookDoors = {
  create: door('Register a webhook endpoint', 'Registers a URL the grain\'s events are POSTed to, signed per Standard Webhooks with the endpoint\'s secret (`whsec_…`, shown in this answer only). It is sent the events of what happens after it is registered, at least once and in journal order, each retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; an endpoint failing for 5 days in a row is disabled. At the top level an endpoint is the key\'s and is sent only its records\' events; in a sandbox grain, the grain\'s.', {
    201: Ok({ webhook: ref(WebhookEndpoint), secret: StrEx('whsec_QlE0p71N5uCsNoeNdGAeZhBPpqi1oz91', { description: 'the signing secret, shown once: verify each delivery\'s webhook-signature with it (the standardwebhooks package)' }) }, 'the endpoint and its signing secret'),
    409: refused('the owner already has 16 enabled endpoints', ['WEBHOOK_ENDPOINT_LIMIT']),
    422: refused('a URL that is not https:// on a public address (a sandbox grain also takes loopback)', ['WEBHOOK_URL_REFUSED']),
  }),
  list: door('List webhook endpoints', 'The endpoints of the calling key (at the top level) or of the grain: every enabled one (at most 16) and the 32 disabled most recently (an older disabled endpoint is still read by id); without a key at the top level, a typed EMPTY naming the fix.', { 200: Listed(ref(WebhookEndpoint), {}, 'the endpoints, or a typed EMPTY') }),
  get: door('Read a webhook endpoint', 'One endpoint, without its secret.', { 200: Ok({ webhook: ref(WebhookEndpoint) }, 'the endpoint'), 404: NOT_YOURS }),
  disable: door('Disable a webhook endpoint', 'Stops every delivery to it, for good (journaled); nothing is deleted. Disabling it again changes nothing.', { 200: Ok({ webhook: ref(WebhookEndpoint) }, 'the disabled endpoint'), 404: NOT_YOURS }),
  deliveries: door('List an endpoint\'s delivery attempts', 'Every attempt, newest first, with its status, duration, the receiver\'s status and the first 1 KiB of its body; page with `before`.', {
    200: Listed(ref(WebhookAttempt), { nextBefore: Nullable(Type.Integer({ description: 'pass as `before` for older attempts; null: this was the last page' })) }, 'a page of attempts, or a typed EMPTY'),
    404: NOT_YOURS,
  }),
  redeliver: door('Redeliver an event', 'Sends the delivery\'s event again now, beside the ordered deliveries (same event id, a fresh signature); the attempt is listed with `redelivery: true`.', {
    202: Ok({ redelivery: Strict({ deliveryId: StrEx(EXAMPLE.delivery), eventId: StrEx(EXAMPLE.event), type: ref(WebhookEventType) }) }, 'the redelivery, under way'),
    404: refused('no such endpoint among yours, or no such delivery of it', ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND']),
    409: refused('the endpoint is disabled', ['WEBHOOK_DISABLED']),
    500: refused('the delivery\'s event can no longer be read from the journal (its stream and seq named)', ['ENTITY_UNREADABLE']),
  }),
};

// The inspection: one record on its machine (src/engine/inspection.ts).
const Inspected = Ok({ inspection: ref(Inspection) }, 'the record on its machine: its path up to `at`, its state, the commands open and every other with its refusal');
const BEFORE_OPENING = refused('`at` names a seq before the record opened (the fix names its range)', ['INSPECTION_BEFORE_OPENING']);
const TIME_TRAVEL = 'With `?at=<seq>` (a seq of its journal), the same answer as of that fact: the state then, the path so far, the commands open then.';
const ASKED = 'Open doors and refusals are asked of the decider beside the machine (the one that decides real commands) with a representative body, shown beside each; the refusal is the one the door answers, worded by the catalog.';
export const InspectionDoors = {
  matter: door('Inspect a Matter on its machine', `The Matter's machine and version, its state, its path (every fact with the event that caused it, the states before and after, the edges taken, who acted, the Gig and Signer), the commands it accepts now (each with its door, method and body) and every other command with the refusal it would get. ${ASKED} ${TIME_TRAVEL} Keyless: the id is the capability.`, {
    200: Inspected,
    404: NO_MATTER,
    422: BEFORE_OPENING,
    500: UNREADABLE,
  }),
  ladder: door('Inspect a Deadline Ladder on its machine', `The Asset's ladder on its machine: its state, its path (ticks, rungs, acks, evidence), the commands it accepts now and every other with its refusal. ${ASKED} ${TIME_TRAVEL} Keyless: the Asset id is the capability.`, {
    200: Inspected,
    404: refused('no ladder for that Asset here', ['LADDER_NOT_FOUND']),
    422: BEFORE_OPENING,
    500: refused('the ladder\'s stream cannot be read by today\'s machine', ['ENTITY_UNREADABLE']),
  }),
  enrollment: door('Inspect a member\'s Enrollment on its machine', `The member's current Enrollment on its machine: its state, its path (enrollment, amendments, revocation), the commands it accepts now and every other with its refusal. ${ASKED} ${TIME_TRAVEL}`, {
    200: Inspected,
    404: refused('the member holds no Enrollment here', ['ENROLLMENT_NOT_FOUND']),
    422: BEFORE_OPENING,
    500: refused('the Enrollment\'s stream cannot be read by today\'s machine', ['ENTITY_UNREADABLE']),
  }),
};
