/**
 * Every refusal the service answers, written once, as fastify's own
 * `lib/errors.js` writes its errors: the code, the HTTP status, the outcome
 * type where it is typed (BLOCKED, EMPTY), the rule a Gate refusal names,
 * the wording (from typed arguments) and the fix an agent can act on.
 *
 * Everything that refuses names its refusal here (`refusal(code, args)`);
 * the HTTP edge (`src/http/errors.ts`) maps the `Refusal` it builds to the
 * wire; docs and tests walk `REFUSALS`. A refusal never writes.
 */
import type { Refusing } from '../../machines/decision.ts';
import { ENROLLMENT_GRANTS } from '../../machines/enrollment.ts';
import { ENTITIES, PATENTS, TRADEMARKS, UCC_FILINGS } from './capabilities/dataset.ts';
import { Refusal, type RefusalType } from './refusal.ts';

type Status = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 412 | 413 | 415 | 422 | 429 | 431 | 500 | 503;

export interface RefusalEntry<A> {
  status: Status;
  /** The typed outcome, where the answer is one (a BLOCKED door, an EMPTY read). */
  type?: RefusalType;
  /** The rule a Gate refusal names (`rule` in the body). */
  rule?: string;
  /** What the caller does next; a refusal built with its own `fix` keeps that one. */
  fix: string;
  says: (args: A) => string;
}

const entry = <A = Record<never, never>>(e: RefusalEntry<A>): RefusalEntry<A> => e;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const REFUSALS = {
  // Keys, access and the edge.
  KEY_MALFORMED: entry({ status: 401, fix: 'POST /keys', says: () => 'the Authorization header must be "Bearer <key>" with the key POST /keys issued' }),
  KEY_UNKNOWN: entry({ status: 401, fix: 'POST /keys', says: () => 'that API key is malformed or was never issued here; issue one with POST /keys (it is shown once)' }),
  KEY_REQUIRED: entry<{ method: string; url: string; mandate: boolean }>({
    status: 401,
    fix: 'POST /keys',
    says: (a) => `${a.method} ${a.url} writes on the top-level surface and needs an API key: POST /keys with your email (a key is shown once), then send Authorization: Bearer <key>. Sandbox grains (POST /workspaces) stay keyless.${a.mandate ? ' An X-Mandate header is carried as provenance only and never stands in for a key.' : ''}`,
  }),
  KEY_REVOKED: entry<{ keyId: string; at: string; successorId: string | null }>({
    status: 401,
    fix: 'POST /keys',
    says: (a) =>
      `API key ${a.keyId} was revoked at ${a.at}: it is refused on every door from then on and nothing it sends is run. ` +
      (a.successorId ? `Its successor ${a.successorId} (issued when it was rolled) owns its records and spend: send that key instead (GET /keys/self with it shows its state)` : 'Issue a new key with POST /keys; the records this key opened stay readable by id'),
  }),
  KEY_EXPIRED: entry<{ keyId: string; at: string; successorId: string }>({
    status: 401,
    fix: 'GET /keys/self',
    says: (a) => `API key ${a.keyId} was rolled, and its grace period ended at ${a.at}: it is refused on every door from then on and nothing it sends is run. Its successor ${a.successorId} owns its records and spend: send that key instead (GET /keys/self with it shows its state)`,
  }),
  KEY_ALREADY_ROLLED: entry<{ keyId: string; successorId: string; expiresAt: string }>({
    status: 409,
    fix: 'GET /keys/self',
    says: (a) => `API key ${a.keyId} was already rolled: its successor is ${a.successorId}, and this key is honoured until ${a.expiresAt}. A key rolls once; roll the successor (POST /keys/self/roll with it) to roll again, or end this one now with POST /keys/self/revoke`,
  }),
  INVALID_PROVENANCE: entry<{ header: string; limit: number }>({ status: 422, fix: 'send X-Actor and X-Mandate within their lengths, or not at all', says: (a) => `${a.header} must be 1 to ${a.limit} characters; it is carried as provenance only, never as proof` }),
  SPEND_CEILING: entry<{ act: string; priceUsd: number; committedUsd: number; ceiling: number }>({
    status: 403,
    type: 'BLOCKED',
    fix: 'issue a key with a higher spendCeilingUsd (POST /keys)',
    says: (a) => `${a.act} costs ${a.priceUsd} USD, and this key has ${a.committedUsd} USD committed under its hard spend ceiling of ${a.ceiling} USD: the act would pass the ceiling, so it is refused and nothing was written. Issue a key with a higher spendCeilingUsd (POST /keys) to go further`,
  }),
  ACCESS_REQUIRED: entry<{ door: string; access: string; how: string }>({
    status: 403,
    type: 'BLOCKED',
    fix: 'this door opens only at the credential_verified tier: `upgrade` in this answer says how, and GET /icp.json whether the tier is live; no key or degraded read stands in for it',
    says: (a) => `${a.door} needs requiresAccess: ${a.access}, a restricted upstream consumable only with a live credential checked at call time. The upgrade path is the credential_verified tier (${a.how}), which is not live in this preview, so the door answers BLOCKED rather than anything degraded`,
  }),
  CREATION_BOUND: entry<{ caller: string; count: number; kind: string; windowSeconds: number; limit: number; retryAfterSeconds: number }>({
    status: 429,
    type: 'BLOCKED',
    fix: 'wait Retry-After seconds, or reuse a grain you already hold',
    says: (a) => `the per-caller creation bound is reached: ${a.caller} opened ${a.count} sandbox ${a.kind}s in the last ${a.windowSeconds} seconds (at most ${a.limit}); retry after ${a.retryAfterSeconds} seconds, or reuse a grain you already hold`,
  }),
  RATE_LIMITED: entry<{ caller: string; limit: number; retryAfterSeconds: number }>({
    status: 429,
    type: 'BLOCKED',
    fix: 'wait Retry-After seconds, then send the request again (under the same Idempotency-Key if it had one); pace requests under the limit RateLimit-Policy states',
    says: (a) => `the per-caller rate limit is reached: ${a.caller} may send at most ${plural(a.limit, 'request')} per second and has sent them all in this one, so this request was not run and nothing was written; retry after ${plural(a.retryAfterSeconds, 'second')}. The RateLimit-Policy and RateLimit headers carry the limit and what is left of it`,
  }),
  STREAM_CAP: entry<{ caller: string; limit: number }>({
    status: 429,
    type: 'BLOCKED',
    fix: 'close an event stream you no longer read (its slot frees at once), then open GET /events/stream again; one stream per grain and feed follows everything',
    says: (a) => `${a.caller} already holds ${plural(a.limit, 'open event stream')} on this service process, the most one caller may hold, so this one was not opened; close one you no longer read (its slot frees at once) and open this one again. One stream per grain and feed follows everything`,
  }),
  BODY_TOO_DEEP: entry<{ limit: number }>({ status: 400, fix: 'send the fields the operation documents in /openapi.json, nested as its schema says (a few levels at most)', says: (a) => `the JSON body nests objects and arrays more than ${a.limit} levels deep; no body of this contract needs more than a few: send the fields the operation documents` }),
  SCOPE_RESERVED: entry<{ scope: string }>({ status: 403, type: 'BLOCKED', fix: 'leave "scope" out of the query: GET /matters lists your own records', says: (a) => `scope "${a.scope}" is reserved: admin and internal views are not served on this surface` }),
  INVALID_LAST_EVENT_ID: entry<{ value: string }>({ status: 422, fix: 'send Last-Event-ID: <the seq of the last event received>, or ?after=<seq>', says: (a) => `Last-Event-ID must be the seq of the last event received (a non-negative integer), got ${JSON.stringify(a.value)}` }),
  DIAGRAM_NOT_GENERATED: entry<{ file: string }>({ status: 404, type: 'EMPTY', fix: 'npm run diagrams', says: (a) => `${a.file} is not generated in this build: npm run diagrams draws the state diagrams from the machines into visualizations/` }),
  SCRIPT_NOT_FOUND: entry<{ file: string }>({ status: 404, type: 'EMPTY', fix: 'load the page again (GET /docs, /sandbox, …/inspect): it names the scripts the running build serves', says: (a) => `${a.file} is not a script of the running build: a page names its scripts by their content, so an earlier build's are gone once the service runs another` }),

  // The supply network's callback and the Signer registry.
  SIGNATURE_INVALID: entry<{ why: 'missing'; missing: string[] } | { why: 'timestamp'; timestamp: string } | { why: 'mismatch' }>({
    status: 401,
    fix: 'sign the exact body with the supply network secret per Standard Webhooks: webhook-id, webhook-timestamp (unix seconds) and webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">',
    says: (a) =>
      a.why === 'missing' ? `this callback carries no Standard Webhooks signature (missing ${a.missing.join(', ')}): the top-level gig-result door accepts only the supply network's signed callback, and an API key never stands in for it. Nothing was written`
      : a.why === 'timestamp' ? `webhook-timestamp must be whole unix seconds, got ${JSON.stringify(a.timestamp)}. Nothing was written`
      : 'no webhook-signature matches this body: it was signed with another secret, or the body changed after signing. Nothing was written',
  }),
  SIGNATURE_EXPIRED: entry<{ skew: number; tolerance: number }>({ status: 401, fix: 'sign the body again with webhook-timestamp set to the current unix seconds, and send it under the same webhook-id', says: (a) => `webhook-timestamp is ${Math.abs(a.skew)} s ${a.skew < 0 ? 'in the past' : 'in the future'}, beyond the ${a.tolerance} s tolerance: a stale or replayed callback is refused. Nothing was written` }),
  SUPPLY_NETWORK_NOT_CONNECTED: entry({
    status: 403,
    type: 'BLOCKED',
    fix: 'set LEGALWORK_SUPPLY_SECRET',
    says: () => "no supply network is connected to this service (LEGALWORK_SUPPLY_SECRET is not set), so no Signer's result can be accepted at the top level; the operator connects one by setting the network's signing secret. Rehearse results keylessly inside a sandbox grain (POST /workspaces)",
  }),
  WEBHOOK_ID_REUSED: entry<{ webhookId: string; other: 'body' | 'Matter' }>({ status: 422, fix: 'send a new message under a new webhook-id', says: (a) => `webhook-id ${a.webhookId} was already accepted for another ${a.other}; a webhook-id names one message: send a new message under a new id. Nothing was written` }),
  SIGNER_REGISTRY_UNAVAILABLE: entry<{ reason: string }>({ status: 503, fix: 'send the same result again in a moment, under the same webhook-id; the operator makes the file LEGALWORK_SIGNER_REGISTRY names readable', says: (a) => `the Signer registry cannot be read (${a.reason}), so no Signer can be verified: nothing was applied and the Gig stays pending; send the result again once the registry is readable` }),
  SIGNER_ELIGIBILITY: entry<{ error: string }>({ status: 422, rule: 'attestation', fix: 'answer the pending Gig from a Signer the registry verifies eligible (inside a sandbox grain, "sg_fixture_eligible": GET /workspaces/{id}/fixtures lists the fixture Signers)', says: (a) => `${a.error}; the Gig stays pending` }),
  SIGNER_STANDING: entry<{ error: string }>({ status: 422, rule: 'attestation', fix: 'have a Signer in good standing (registry standing "good") answer the pending Gig: another Signer meanwhile, or this one once restored', says: (a) => `${a.error}; the Gig stays pending` }),
  SIGNER_COVERAGE: entry<{ error: string }>({ status: 422, rule: 'attestation', fix: 'the Signer re-verifies coverage in force (registry coverageInForce: true; `cure` says how) and sends the same result again: the Gig stays pending', says: (a) => `${a.error}; the Gig stays pending` }),
  SIGNER_CREDENTIAL: entry<{ error: string }>({ status: 422, rule: 'attestation', fix: 'send attestation.credentialRef as the Signer\'s own registered credential, "<registry>:<number>" as the registry lists it', says: (a) => `${a.error}; the Gig stays pending` }),
  SIGNER_CREDENTIAL_NOT_LIVE: entry<{ error: string; credential: string; cure: string }>({
    status: 403,
    type: 'BLOCKED',
    fix: 'name a Signer whose credential is live in "signerId", or leave "signerId" out (the network routes to one)',
    says: (a) => `${a.error}: a reserved act is routed only to a Signer whose ${a.credential} credential is live, so this is BLOCKED, never degraded. Cure: ${a.cure}`,
  }),

  // Matters.
  VERSION_MISMATCH: entry<{ record: string; expected: number; current: number }>({ status: 412, fix: 'read the record again (its ETag is its version), decide again, and send If-Match with the current version', says: (a) => `${a.record} is at version ${a.current}, not ${a.expected}: it moved on since it was read; nothing was written` }),
  WEBHOOK_URL_REFUSED: entry<{ url: string; why: string; sandbox: boolean }>({
    status: 422,
    fix: 'send "url" as an https:// URL on a public address (inside a sandbox grain, http://127.0.0.1:<port>/… works too) to POST /webhooks',
    says: (a) => `the webhook URL ${JSON.stringify(a.url)} is refused: ${a.why}. ${a.sandbox ? 'A sandbox endpoint is https:// on a public address, or http(s):// on loopback (127.0.0.1, ::1)' : 'A top-level endpoint is https:// on a public address: never loopback, private, link-local or metadata addresses'}. Nothing was registered`,
  }),
  WEBHOOK_ENDPOINT_LIMIT: entry<{ limit: number }>({
    status: 409,
    fix: 'disable an endpoint you no longer use (POST /webhooks/{id}/disable), or subscribe one endpoint to more events ("*" takes them all)',
    says: (a) => `there are already ${a.limit} enabled webhook endpoints here, the most one owner may have at once (at the top level a key's owner, in a sandbox grain the grain). Nothing was registered: disable one you no longer use with POST /webhooks/{id}/disable, or send more event types to an endpoint you have`,
  }),
  WEBHOOK_NOT_FOUND: entry<{ webhookEndpointId: string }>({ status: 404, type: 'EMPTY', fix: 'GET /webhooks lists the endpoints of your key (or of the grain)', says: (a) => `webhook endpoint ${a.webhookEndpointId} does not exist here` }),
  WEBHOOK_DELIVERY_NOT_FOUND: entry<{ webhookEndpointId: string; deliveryId: string }>({ status: 404, type: 'EMPTY', fix: 'GET /webhooks/{id}/deliveries lists the deliveries of the endpoint', says: (a) => `delivery ${a.deliveryId} is not one of webhook endpoint ${a.webhookEndpointId}'s` }),
  WEBHOOK_DISABLED: entry<{ webhookEndpointId: string; reason: string }>({ status: 409, fix: 'register a new endpoint (POST /webhooks): a disabled endpoint stays disabled', says: (a) => `webhook endpoint ${a.webhookEndpointId} is disabled (${a.reason}); nothing is sent to it. Nothing was redelivered` }),
  IDEMPOTENCY_KEY_INVALID: entry<{ why: string }>({ status: 400, fix: 'send one Idempotency-Key of 1 to 255 printable ASCII characters (a UUID is a good key), or none', says: (a) => `the Idempotency-Key header ${a.why}: a key is 1 to 255 printable ASCII characters, sent once; nothing was run` }),
  IDEMPOTENCY_KEY_UNSCOPED: entry<{ method: string; url: string }>({
    status: 400,
    fix: 'send Authorization: Bearer <key> with the Idempotency-Key (POST /keys issues one), or send the request without it',
    says: (a) => `${a.method} ${a.url} was sent with an Idempotency-Key but without an API key: at the top level a kept answer belongs to the API key that asked (inside a sandbox grain, to the grain), and an anonymous caller has none to keep it under, so it would be anyone's to replay. Nothing was run`,
  }),
  IDEMPOTENCY_KEY_REUSED: entry<{ key: string }>({ status: 422, fix: 'send a new Idempotency-Key for a new request; reuse a key only to retry the very same request', says: (a) => `Idempotency-Key ${JSON.stringify(a.key)} was used in the last 24 hours for another request (another method, path or body); a key names one request. Nothing was run` }),
  IDEMPOTENCY_KEY_IN_USE: entry<{ key: string }>({ status: 409, fix: 'send the same request again in a moment under the same Idempotency-Key: it answers what the first request answered', says: (a) => `a request under Idempotency-Key ${JSON.stringify(a.key)} is still running; this one was not run. Retry with the same key in a moment to get its answer` }),
  IDEMPOTENCY_ANSWER_LOST: entry<{ key: string; committedAt: string; wrote: string[] }>({
    status: 409,
    fix: 'do not send the request again under another Idempotency-Key: it committed; read the records it wrote (the ids in "wrote", e.g. GET /matters/{id})',
    says: (a) => `the request under Idempotency-Key ${JSON.stringify(a.key)} committed at ${a.committedAt}, but its answer was lost before it was sent (the service stopped, or failed, after the commit); it is not run again. It wrote ${a.wrote.join(', ')}: read them for its outcome`,
  }),
  MATTER_NOT_FOUND: entry<{ matterId: string }>({ status: 404, fix: 'use an id GET /matters lists: the Matters of your key (or of the grain)', says: (a) => `Matter ${a.matterId} does not exist here` }),
  ASSET_NOT_FOUND: entry<{ assetId: string }>({ status: 404, fix: 'use an id GET /assets lists: the Assets of your key (or of the grain)', says: (a) => `Asset ${a.assetId} does not exist here` }),
  MATTER_TYPE_NOT_RATIFIED: entry<{ given: unknown; ratified: readonly string[] }>({
    status: 400,
    fix: 'send matterType as one of the ratified values (the enum in /openapi.json)',
    says: (a) => (a.given === undefined ? `matterType is required: one of ${a.ratified.join(', ')}` : `matterType ${JSON.stringify(a.given)} is not ratified: use one of ${a.ratified.join(', ')}`),
  }),
  RAIL_MISMATCH: entry<{ matterType: string; rail: string; asked: string }>({ status: 422, fix: 'leave "rail" out: the matterType decides it', says: (a) => `matterType ${a.matterType} runs on the ${a.rail} rail, not ${a.asked}` }),
  MATTER_TERMINAL: entry<{ matterId: string; status: string; consequence: string }>({ status: 409, fix: 'open a new Matter (POST /matters): a terminal is forever', says: (a) => `Matter ${a.matterId} is ${a.status}: ${a.consequence}` }),
  MATTER_WAITING_ON_SIGNER: entry<{ matterId: string; reservedAct: string; gigId: string }>({ status: 409, fix: 'wait for the Signer\'s answer (GET /events/stream, or poll the Matter)', says: (a) => `Matter ${a.matterId} is waiting_on_signer: the reserved act ${a.reservedAct} is with the supply network as Gig ${a.gigId}; it moves when the Signer answers` }),
  MATTER_NEEDS_CLIENT_DIRECTION: entry<{ matterId: string }>({ status: 409, fix: 'POST /matters/{id}/client-direction with the Client\'s instruction', says: (a) => `Matter ${a.matterId} was stopped by a Declination: it is final until the Client speaks (POST /matters/${a.matterId}/client-direction)` }),
  MATTER_NOT_FULFILLED: entry<{ matterId: string; status: string }>({ status: 409, fix: 'read GET /matters/{id}/settlement once the Matter\'s status is "fulfilled"; GET /matters/{id} shows where it stands', says: (a) => `Matter ${a.matterId} is ${a.status}: settlement exists only once it is fulfilled (no filing, no charge)` }),
  STATE_REFUSES: entry<{ subject: string; event: string }>({ status: 409, fix: 'read the record again (GET /matters/{id}, or GET /deadlines/{assetId} for a ladder) and send a command its current state takes', says: (a) => `${a.subject}, which does not take ${a.event}` }),
  ACTOR_NOT_CLIENT: entry<{ actor: string; door: 'consent' } | { actor: unknown; door: 'tenant'; act: string }>({
    status: 422,
    fix: 'only the Client speaks through this door (actor "client", X-Actor: client)',
    says: (a) => (a.door === 'consent' ? `consent requires actor "client"; "${a.actor}" cannot consent for the Client` : `X-Actor ${JSON.stringify(a.actor)} cannot ${a.act} the Client: on a Tenant's Matters only the Client (X-Actor: client) speaks through this door`),
  }),
  NO_PENDING_GIG: entry<{ matterId: string; status: string }>({ status: 409, fix: 'send a result only for the pending Gig a Matter names (pendingGigId)', says: (a) => `Matter ${a.matterId} holds no pending Gig (it is ${a.status})` }),
  GIG_MISMATCH: entry<{ matterId: string; gigId: string; pendingGigId: string }>({ status: 409, fix: 'answer the Gig the Matter names in pendingGigId', says: (a) => `gig ${a.gigId} is not the pending Gig of Matter ${a.matterId}; the network holds ${a.pendingGigId}` }),
  INSTRUCTION_MISSING: entry({ status: 422, fix: 'send the Client\'s words as "instruction", a non-empty string', says: () => 'a Client direction needs a non-empty instruction' }),
  GATE_CONSENT: entry<{ matterId: string; consumerPattern: string }>({ status: 422, rule: 'consent', fix: 'POST /matters/{id}/consent with actor "client", then advance', says: (a) => `Matter ${a.matterId} is ${a.consumerPattern}: it cannot pass intake until the Client's consent is journaled (POST /matters/${a.matterId}/consent with actor "client")` }),
  GATE_ACTOR: entry({ status: 422, rule: 'actor', fix: 'send byClient: true when the Client withdraws', says: () => 'withdrawal requires byClient: true; only the Client can withdraw, never an agent or a Tenant on its behalf' }),
  GATE_PREDICATE: entry<{ outcome: 'lapsed' | 'referred_out' }>({
    status: 422,
    rule: 'predicate',
    fix: 'send the outcome\'s predicate (confirmedUnresponsiveTwice: true, or referredTo)',
    says: (a) => (a.outcome === 'lapsed' ? 'lapsed requires confirmedUnresponsiveTwice: true' : 'referred_out requires referredTo naming where the Matter goes'),
  }),
  GATE_ATTESTATION: entry<{ flaw: 'missing' } | { flaw: 'credentialRef'; credentialRef: string } | { flaw: 'artifactHash' }>({
    status: 422,
    rule: 'attestation',
    fix: 'send an Attestation {signedBy, credentialRef "<registry>:<number>", artifactHash "sha256:<64 hex>"}',
    says: (a) =>
      a.flaw === 'missing' ? 'attested requires an Attestation with signedBy, credentialRef and artifactHash'
      : a.flaw === 'credentialRef' ? `attestation.credentialRef must be "<registry>:<number>", got "${a.credentialRef}"`
      : 'attestation.artifactHash must be "sha256:" followed by 64 lowercase hex characters',
  }),
  GATE_DEFECTS: entry({ status: 422, rule: 'defects', fix: 'send the defects found as "memo"', says: () => 'send_back requires a memo noting the defects found in the paid review' }),
  GATE_MEMO: entry({ status: 422, rule: 'memo', fix: 'send the Declination\'s words as "memo"', says: () => 'declined requires a memo: a Declination is worded' }),
  GATE_MECHANICS: entry<{ listFeeUsd: number; maxFeeUsd: number } | { jurisdiction: string; allowlist: string[] }>({
    status: 422,
    rule: 'mechanics',
    fix: 'stay within the Tenant Guardrails: listFeeUsd at most the fee cap (maxFeeUsd), a jurisdiction on the allowlist (`limit` in this answer)',
    says: (a) => ('maxFeeUsd' in a ? `listFeeUsd ${a.listFeeUsd} exceeds the Tenant Guardrail maxFeeUsd ${a.maxFeeUsd}` : `jurisdiction ${a.jurisdiction} is outside the Tenant Guardrail allowlist (${a.allowlist.join(', ')})`),
  }),
  GATE_MERITS: entry<{ proposed: number; floor: number }>({ status: 422, rule: 'merits', fix: 'propose merits.settlementUsd at or above the Client Mandate\'s settlementFloor; only the Client can change it', says: (a) => `the proposed settlement ${a.proposed} USD is below the Client Mandate settlementFloor ${a.floor} USD; only the Client can change it` }),

  // Deadline Ladders.
  LADDER_NOT_FOUND: entry<{ assetId: string }>({ status: 404, fix: 'GET /assets lists the Assets that carry ladders', says: (a) => `no Deadline Ladder for Asset ${a.assetId} here: each Matter mints its Asset with a ladder (GET /assets lists them)` }),
  LADDER_RESOLVED: entry<{ assetId: string; how: string }>({ status: 409, fix: 'nothing more to do on this ladder: a resolved ladder is forever (GET /deadlines/{assetId} shows how it closed)', says: (a) => `the ladder of Asset ${a.assetId} is already closed, resolved ${a.how}: a resolved ladder is forever` }),
  TICK_REFUSED: entry<{ assetId: string; outcomes: readonly string[]; terminalDays: number } | { assetId: string; days: number; left: number }>({
    status: 409,
    fix: 'send "days" at most the days that remain (GET /deadlines/{assetId}); at the terminal rung, POST /deadlines/{assetId}/satisfy or /resolve',
    says: (a) =>
      'outcomes' in a
        ? `the ladder of Asset ${a.assetId} is at the terminal rung (${a.terminalDays} days): it takes no more ticks; satisfy it with evidence or resolve it with one of ${a.outcomes.join(', ')}`
        : `a tick of ${plural(a.days, 'day')} would pass the deadline of Asset ${a.assetId}: only ${plural(a.left, 'day')} remain; tick at most ${a.left}`,
  }),
  NO_ACK_DUE: entry<{ assetId: string; days: number; window: number } | { assetId: string; days: number; by: string }>({
    status: 409,
    fix: 'acknowledge (POST /deadlines/{assetId}/ack) once a day, from the ack window\'s start to 1 day remaining; GET /deadlines/{assetId} says whether one is due (ackRequiredToday)',
    says: (a) =>
      'window' in a
        ? `no acknowledgment is due on the ladder of Asset ${a.assetId}: ${plural(a.days, 'day')} remain, and acks are owed each day from ${a.window} days down to 1 day remaining`
        : `today's acknowledgment on the ladder of Asset ${a.assetId} is already given (by ${a.by} at ${plural(a.days, 'day')} remaining); the next one is owed after the next tick`,
  }),
  NOT_AT_TERMINAL_RUNG: entry<{ assetId: string; days: number; terminalDays: number }>({
    status: 409,
    fix: 'tick down to the terminal rung (POST /deadlines/{assetId}/tick), or close it sooner with evidence (POST /deadlines/{assetId}/satisfy)',
    says: (a) => `the ladder of Asset ${a.assetId} is not at the terminal rung: ${plural(a.days, 'day')} remain; resolve is possible only at ${a.terminalDays} days (tick ${a.days} to reach it) and evidence closes it sooner (POST /deadlines/${a.assetId}/satisfy)`,
  }),
  ACTOR_MISSING: entry<{ field: string; what: string }>({ status: 422, fix: 'send "actor" naming the human who acknowledges', says: (a) => `${a.field} must name ${a.what}; a blank value names nobody` }),
  EVIDENCE_MISSING: entry<{ field: string; what: string }>({ status: 422, fix: 'send "evidenceRef" naming the evidence (a receipt, a docket entry)', says: (a) => `${a.field} must name ${a.what}; a blank value names nobody` }),

  // Sandbox grains: workspaces, tenants, firms.
  WORKSPACE_NOT_FOUND: entry<{ id: string }>({ status: 404, type: 'EMPTY', fix: 'POST /workspaces', says: (a) => `workspace ${a.id} does not exist or has expired` }),
  TENANT_NOT_FOUND: entry<{ id: string }>({ status: 404, type: 'EMPTY', fix: 'POST /tenants', says: (a) => `tenant ${a.id} does not exist or has expired` }),
  FIRM_NOT_FOUND: entry<{ id: string }>({ status: 404, type: 'EMPTY', fix: 'POST /firms', says: (a) => `firm ${a.id} does not exist or has expired` }),
  DUPLICATE_OFFER: entry<{ offerId: string }>({ status: 422, fix: 'give each Offer its own "id"', says: (a) => `Offer id "${a.offerId}" is declared twice: each Offer needs its own id` }),
  OFFER_REQUIRED: entry<{ fix: string }>({ status: 422, rule: 'offer', fix: 'name a declared Offer in "offer"', says: (a) => `a Tenant mints only against a declared Offer: put its id in "offer"; ${a.fix}` }),
  UNKNOWN_OFFER: entry<{ offer: unknown; tenantId: string; fix: string }>({ status: 422, rule: 'offer', fix: 'name a declared Offer in "offer"', says: (a) => `Offer "${a.offer}" is not declared by tenant ${a.tenantId}; ${a.fix}` }),
  OFFER_MATTER_TYPE: entry<{ offerId: string; offerType: string; wanted: string }>({ status: 422, rule: 'offer', fix: 'leave matterType out, or send the Offer\'s', says: (a) => `Offer "${a.offerId}" mints ${a.offerType}, not ${a.wanted}` }),
  OFFER_PRICE: entry<{ offerId: string; priceUsd: number; listFeeUsd: unknown }>({ status: 422, rule: 'offer', fix: 'omit listFeeUsd to take the posted price', says: (a) => `Offer "${a.offerId}" posts the flat price ${a.priceUsd} USD; listFeeUsd ${JSON.stringify(a.listFeeUsd)} contradicts it (omit listFeeUsd to take the posted price)` }),
  TENANT_MISMATCH: entry<{ tenantId: string; named: unknown }>({ status: 422, fix: 'leave "tenant" out: the path names it', says: (a) => `this Matter is minted on tenant ${a.tenantId}; "tenant" cannot name ${JSON.stringify(a.named)}` }),
  MERITS_BEARING_KEY: entry<{ path: string; who: string }>({ status: 422, rule: 'mechanics', fix: 'leave the named key out and declare mechanics only (fee caps such as maxFeeUsd, windows, allowlists): only the Client\'s Mandates bind the merits', says: (a) => `${a.path} is merits-bearing: a ${a.who} declares mechanics only (fee caps, windows, allowlists); only the Client's Mandates bind the merits` }),
  ACTOR_SHAPED_KEY: entry<{ path: string }>({ status: 422, rule: 'envelope', fix: 'leave the named key out and declare the firm\'s envelope only: routing, remittanceDesignation, participationWindows, memberOptIns', says: (a) => `${a.path} is actor-shaped: a firm holds member-executed Enrollment grants and never claims, substitutes, reserves, signs, attests or scores` }),
  PERCENTAGE_PRICE: entry<{ path: string; shape: 'share' } | { path: string; shape: 'percent'; price: string } | { path: string; shape: 'object' }>({
    status: 422,
    rule: 'fee_shape',
    fix: 'post a flat number of USD, e.g. "priceUsd": 199',
    says: (a) =>
      a.shape === 'share' ? `${a.path} expresses a share: prices are flat USD amounts only, never a percent of an outcome`
      : a.shape === 'percent' ? `${a.path} is percent-shaped (${JSON.stringify(a.price)}): a price is a flat number of USD, never a percent of an outcome`
      : `${a.path} must be a flat number of USD, not an object: no percent-of-outcome or formula price exists`,
  }),
  NO_GRANT: entry({ status: 422, fix: `send "grants" with at least one of ${ENROLLMENT_GRANTS.map((g) => JSON.stringify(g)).join(', ')}`, says: () => `an Enrollment executes at least one grant: ${ENROLLMENT_GRANTS.join(', ')}` }),
  UNKNOWN_GRANT: entry<{ grant: string }>({ status: 422, fix: `send in "grants" only ${ENROLLMENT_GRANTS.map((g) => JSON.stringify(g)).join(', ')}`, says: (a) => `unknown grant "${a.grant}": the grants a member may execute are ${ENROLLMENT_GRANTS.join(', ')}` }),
  UNKNOWN_MEMBER: entry<{ memberId: string; directory: string }>({ status: 422, fix: 'name a member of the sandbox directory (GET /firms/{id}/fixtures)', says: (a) => `unknown member "${a.memberId}": the sandbox member directory lists ${a.directory} (GET /firms/{id}/fixtures)` }),
  ENROLLMENT_NOT_FOUND: entry<{ memberId: string; firmId: string } | { enrollmentId: string }>({
    status: 404,
    fix: 'POST /firms/{id}/enrollments executes one',
    says: (a) => ('enrollmentId' in a ? `Enrollment ${a.enrollmentId} does not exist here` : `${a.memberId} holds no Enrollment in firm ${a.firmId}: POST /firms/${a.firmId}/enrollments executes one`),
  }),
  NOTHING_TO_AMEND: entry<{ memberId: string; grants: string[]; held: string[] }>({ status: 409, fix: 'send in "grants" a grant the member does not hold yet', says: (a) => `${a.memberId}'s live Enrollment already holds ${a.grants.join(', ')}: an amendment must execute a grant not yet held (held: ${a.held.join(', ')})` }),
  ALREADY_REVOKED: entry<{ memberId: string; enrollmentId: string; firmId: string; at?: string }>({ status: 409, fix: 'a fresh enrollment is a new member act: POST /firms/{id}/enrollments', says: (a) => `${a.memberId}'s Enrollment ${a.enrollmentId} was already revoked${a.at ? ` at ${a.at}` : ''}; a fresh enrollment is a new member act (POST /firms/${a.firmId}/enrollments)` }),
  REMITTANCE_TO_FIRM: entry({ status: 403, type: 'BLOCKED', fix: 'use remittanceDesignation "individual"', says: () => 'remittanceDesignation "firm" is refused: a firm is an envelope, never the Merchant of Record or a payee; remittances go to each individual member (use "individual")' }),
  MALFORMED_MECHANICS: entry<{ index: number; from: string; to: string } | { index: number; memberId: string }>({
    status: 422,
    rule: 'mechanics',
    fix: 'send each of participationWindows with "to" after "from" (split a window that crosses midnight in two), and one memberOptIns entry per member',
    says: (a) => ('from' in a ? `body.participationWindows[${a.index}] opens at ${a.from} and closes at ${a.to}: a window must close after it opens (split a window that crosses midnight in two)` : `body.memberOptIns[${a.index}] repeats ${a.memberId}: one opt-in per member`),
  }),
  OPT_IN_NOT_COUNTERSIGNED: entry<{ index: number; memberId: string; firmId: string }>({
    status: 422,
    rule: 'countersignature',
    fix: 'the member executes the routing grant first (POST /firms/{id}/enrollments with "grants": ["routing"]), then send the opt-in again',
    says: (a) => `body.memberOptIns[${a.index}]: ${a.memberId} holds no live Enrollment with the routing grant, so the opt-in is not countersigned; the member executes it first (POST /firms/${a.firmId}/enrollments {"memberId":"${a.memberId}","grants":["routing"]})`,
  }),

  // Conflicts ledgers.
  NAME_HASH_NOT_SHA256: entry<{ field: string }>({ status: 422, rule: 'hashes_only', fix: 'send the sha256 of the name, <64 lowercase hex characters>, never the name itself', says: (a) => `${a.field} is not sha256 hex: send the sha256 of the name as 64 lowercase hex characters; the platform holds hashes only, the plaintext stays with you` }),
  NAME_HASHES_EMPTY: entry({ status: 422, rule: 'hashes_only', fix: 'send at least one hash in "nameHashes"', says: () => 'body.nameHashes is empty: a prescreen checks at least one hash' }),
  CREDENTIAL_VERIFICATION_REQUIRED: entry<{ practitionerId: string }>({
    status: 403,
    type: 'BLOCKED',
    fix: 'rehearse inside a sandbox workspace: POST /workspaces',
    says: (a) => `the per-practitioner conflicts ledger of ${a.practitionerId} opens on the top-level surface only at the credential_verified tier (license verification by the identity provider), which is not live in this preview; rehearse on synthetic state inside a sandbox workspace: POST /workspaces, then /workspaces/{id}/conflicts/${a.practitionerId}`,
  }),
  CONFLICTS_NOT_POOLED: entry<{ at: string }>({ status: 403, type: 'BLOCKED', fix: 'read each practitioner\'s ledger at its own address ("address" in this answer)', says: (a) => `conflicts ledgers are never pooled: each practitioner's ledger has its own address, GET ${a.at}` }),

  // The capability catalog.
  PATENT_NOT_FOUND: entry<{ what: string; asOf: string }>({ status: 404, type: 'EMPTY', fix: `search the data set first (GET /patent/search?q=<words>) and use a number it answers, e.g. ${PATENTS[0].number}`, says: (a) => `${a.what} is not in the data set (synthetic, as of ${a.asOf}); a not-found never meters` }),
  TRADEMARK_NOT_FOUND: entry<{ what: string; asOf: string }>({ status: 404, type: 'EMPTY', fix: `send the 8-digit serial of a mark in the data set, e.g. GET /trademark/${TRADEMARKS[0].serial}/status`, says: (a) => `${a.what} is not in the data set (synthetic, as of ${a.asOf}); a not-found never meters` }),
  ENTITY_NOT_FOUND: entry<{ what: string; asOf: string }>({ status: 404, type: 'EMPTY', fix: `send the state code and registry file number of an entity in the data set, e.g. GET /entity/${ENTITIES[0].state}/${ENTITIES[0].id}/standing`, says: (a) => `${a.what} is not in the data set (synthetic, as of ${a.asOf}); a not-found never meters` }),
  UCC_FILING_NOT_FOUND: entry<{ what: string; asOf: string }>({ status: 404, type: 'EMPTY', fix: `send the state code and number of a filing in the data set, e.g. GET /lien/ucc/${UCC_FILINGS[0].state}/${UCC_FILINGS[0].filing}`, says: (a) => `${a.what} is not in the data set (synthetic, as of ${a.asOf}); a not-found never meters` }),
  ENTITY_NAME_SUFFIX: entry<{ entityName: string; entityType: string; door: 'docs' | 'form' }>({
    status: 422,
    fix: 'end an LLC\'s name with "LLC", a corporation\'s with "Inc." or "Corporation"',
    says: (a) =>
      a.door === 'form' ? `"${a.entityName}" lacks the suffix a Delaware ${a.entityType === 'llc' ? 'LLC' : 'corporation'} name requires (\`accepted\` lists them)`
      : a.entityType === 'llc' ? `an LLC's name must end with "LLC", "L.L.C." or "Limited Liability Company"; "${a.entityName}" does not`
      : `a corporation's name must end with a word such as "Inc.", "Corporation", "Corp." or "Company"; "${a.entityName}" does not`,
  }),
  IDENTIFIER_UNRECOGNIZED: entry<{ field: string; value: string; noun: string; problem?: string; forms: readonly string[] }>({ status: 422, rule: 'identifier', fix: 'send the identifier in one of the forms `accepted` lists', says: (a) => `${a.field} ${JSON.stringify(a.value.slice(0, 60))} ${a.problem ?? `is not ${a.noun} in any form this service reads`}; accepted forms: ${a.forms.join('; ')}` }),
  MAINTENANCE_WINDOW_NOT_OPEN: entry<{ window: string; number: string; state: string; opensOn: string; surchargeUntil: string }>({ status: 409, fix: 'pay within an open window: GET /patent/{number}/maintenance shows each window\'s opensOn and surchargeUntil', says: (a) => `the ${a.window}-year window of ${a.number} is ${a.state} (it opens ${a.opensOn} and takes payment, with surcharge, until ${a.surchargeUntil})` }),
  MAINTENANCE_ALREADY_PAID: entry<{ window: string; number: string }>({ status: 409, fix: 'nothing to do: the fee is paid (GET /patent/{number}/maintenance shows it)', says: (a) => `the ${a.window}-year maintenance fee of ${a.number} is already paid here` }),
  ACT_ALREADY_TAKEN: entry<{ route: string }>({ status: 409, fix: 'read what the other request did before acting again (GET /events shows it on your tail): the act stands once', says: (a) => `${a.route}: the same act was just taken here by another request; nothing was written` }),

  // The HTTP edge: what the framework refuses before a route runs.
  MALFORMED_JSON: entry<{ detail: string }>({ status: 400, fix: 'send a well-formed JSON object with Content-Type: application/json (names in double quotes, no trailing commas)', says: (a) => a.detail }),
  EMPTY_JSON_BODY: entry({ status: 400, fix: 'send a JSON object, or no Content-Type', says: () => 'the body is empty but Content-Type says JSON; send a JSON object' }),
  BODY_TOO_LARGE: entry<{ detail: string }>({ status: 413, fix: 'send a smaller body (at most 256 KiB)', says: (a) => a.detail }),
  UNSUPPORTED_MEDIA_TYPE: entry({ status: 415, fix: 'send Content-Type: application/json', says: () => 'bodies are JSON: send Content-Type: application/json' }),
  BAD_CONTENT_LENGTH: entry<{ detail: string }>({ status: 400, fix: 'send a Content-Length that matches the body', says: (a) => a.detail }),
  INVALID_REQUEST: entry<{ detail: string }>({ status: 422, rule: 'schema', fix: 'send what the operation\'s schema in /openapi.json says', says: (a) => a.detail }),
  BAD_REQUEST: entry<{ detail: string }>({ status: 400, fix: 'send a well-formed HTTP request with a JSON object body and Content-Type: application/json', says: (a) => a.detail }),
  MALFORMED_URL: entry<{ detail: string }>({ status: 400, fix: 'percent-encode the path and query as UTF-8 (RFC 3986): every "%" is followed by two hex digits, a space is "%20"', says: (a) => `the request target is not a well-formed URL: ${a.detail}` }),
  MALFORMED_HTTP: entry<{ detail: string }>({ status: 400, fix: 'send a well-formed HTTP/1.1 request (a request line, a Host header, headers as name: value, a Content-Length that is a number)', says: (a) => `the request is not well-formed HTTP (${a.detail}); it was not run and the connection is closed` }),
  HEADERS_TOO_LARGE: entry<{ limitBytes: number }>({ status: 431, fix: 'send a request line and headers under 16 KiB together: ids and keys are short, and a body carries the rest', says: (a) => `the request line and headers exceed ${a.limitBytes} bytes; it was not run and the connection is closed` }),
  ROUTE_NOT_FOUND: entry<{ method: string; path: string }>({ status: 404, fix: 'see /openapi.json for the doors this service serves', says: (a) => `no route ${a.method} ${a.path}` }),
  METHOD_NOT_ALLOWED: entry<{ method: string; path: string; allowed: string[] }>({ status: 405, fix: 'use one of the methods in the Allow header; /openapi.json lists each door', says: (a) => `${a.path} does not serve ${a.method}: it serves ${a.allowed.join(', ')}` }),
  REQUEST_TIMEOUT: entry<{ timeoutMs: number }>({
    status: 408,
    fix: 'send the request again on a new connection, its headers and body whole and without pausing (under the same Idempotency-Key if it had one)',
    says: (a) => `the request did not arrive whole within ${a.timeoutMs} ms (the time its headers and body have together, counted from the connection's opening, or on a kept-alive connection from the request's first byte), so it was not run and nothing was written; this connection is closed: send the request again, whole, on a new one`,
  }),

  // The operator's metrics address (`LEGALWORK_METRICS_ADDRESS`): not the API, and closed to anyone without its token.
  METRICS_TOKEN_INVALID: entry({
    status: 401,
    fix: 'send Authorization: Bearer <the LEGALWORK_METRICS_TOKEN the service was started with> (Prometheus: `authorization: {credentials: …}` in the scrape config)',
    says: () => 'the metrics door is the operator\'s: this request did not present its token, so nothing is answered',
  }),
  METRICS_ROUTE_NOT_FOUND: entry<{ method: string; path: string }>({
    status: 404,
    fix: 'GET /metrics: the operator\'s metrics address serves nothing else (the API is on PORT)',
    says: (a) => `the metrics address serves only GET /metrics, not ${a.method} ${a.path}`,
  }),

  // The service itself.
  WRITE_CONTENDED: entry<{ stream: string }>({
    status: 409,
    fix: 'send the request again (under the same Idempotency-Key if it had one): it is decided on the record as it then stands',
    says: (a) => `other requests kept changing ${a.stream} while this one was being decided, each time just before it could commit; nothing of this request was written`,
  }),
  SERVICE_DRAINING: entry({ status: 503, fix: 'send the request again in a moment (under the same Idempotency-Key if it had one): to another process, or to this one once it has restarted', says: () => 'this process is stopping: it finishes the requests it had, runs no new one, and nothing of this one was written' }),
  INTERNAL: entry<{ requestId: string }>({ status: 500, fix: 'send the request again (under the same Idempotency-Key if it had one); if it fails again, report the request-id header of this answer', says: (a) => `internal error; quote request-id ${a.requestId} when reporting it` }),
  INSPECTION_BEFORE_OPENING: entry<{ what: string; at: number; first: number; last: number }>({
    status: 422,
    fix: 'send `at` as a seq of its journal (GET …/journal, or the inspection\'s `path`), or leave it out for the answer as of now',
    says: (a) => `${a.what} opened at seq ${a.first} (its facts run from seq ${a.first} to ${a.last}): at=${a.at} is before it opened, when it did not exist yet; ask for a seq from ${a.first} on`,
  }),
  ENTITY_UNREADABLE: entry<{ detail: string; id: string }>({ status: 500, fix: 'report it with the request-id: the stream needs its machine to read it again', says: (a) => `${a.detail}; the service cannot answer for ${a.id} until its machine reads its journal again, and serves everything else` }),
};

export type RefusalCode = keyof typeof REFUSALS;
type ArgsOf<C extends RefusalCode> = (typeof REFUSALS)[C] extends RefusalEntry<infer A> ? A : never;

/**
 * The refusal named `code`, worded from `args`; `extra` adds the fields the
 * caller can act on (ids, limits, the cure). The body is
 * `{type?, error, code, rule?, ...extra, fix}` (a `fix` in `extra` keeps its place and wins).
 */
export function refusal<C extends RefusalCode>(code: C, args: ArgsOf<C>, extra: Record<string, unknown> = {}): Refusal {
  const e = REFUSALS[code] as RefusalEntry<ArgsOf<C>>;
  return new Refusal(e.status, code, e.says(args), { ...(e.rule ? { rule: e.rule } : {}), ...extra, fix: 'fix' in extra ? extra.fix : e.fix }, e.type);
}

/** The refusal a decider (or the Gate) named, worded by the catalog. */
export function refusalOf(named: Refusing): Refusal {
  if (!(named.code in REFUSALS)) throw new Error(`a decider named ${named.code}, which the refusal catalog does not hold`);
  return refusal(named.code as RefusalCode, named.args as never, named.extra);
}
