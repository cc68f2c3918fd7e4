/**
 * Every kind of fact the journal holds, each with what it records: the one
 * list of kinds, in two parts.
 *
 * - `EVENT_KINDS`: the kinds a door answers (a Matter's journal, an Asset's
 *   docket, a grain's tail and its event stream, the `reminder.*` webhooks).
 *   They are the contract's `EventKind`, and each has its `data` declared
 *   field by field, closed, in `src/schemas/facts.ts` (`Fact.<kind>`):
 *   a journal or tail entry is a `oneOf` of them discriminated by `kind`, so
 *   a client generated from the contract narrows a fact's `data` by its kind.
 *   A fact of a kind not listed here, or whose data its kind's schema does not
 *   declare, fails the reply check of any test that reads it.
 * - `INTERNAL_EVENT_KINDS`: the service's own bookkeeping, journaled in
 *   grains no door reads (`keys`, `idempotency`, `webhooks`, `outbox`): a key's
 *   hash, a kept answer, a webhook secret. They are not in the contract, so a
 *   door that ever answered one would fail the reply check, and in production
 *   its serializer would write the entry without its data.
 *
 * The union costs the hottest read (GET of a Matter answers its journal)
 * nothing: fast-json-stringify would resolve a `oneOf` by validating each
 * entry against every branch in turn (why `data` was an open map until issue
 * 33), so the serializers (`src/http/serializers.ts`) write an entry by its
 * own closed fields and its `data` projected onto its kind's schema, by a
 * projector chosen by `kind` (docs/contract-and-keys.md, "Facts typed by kind").
 */
import { RUNGS, type RungName } from '../../machines/deadline-ladder.ts';

const reminders = Object.fromEntries(RUNGS.map((rung) => [`reminder.${rung}`, `the ${rung.replace('_', ' ')} rung of a Deadline Ladder fired (a tick crossed it), addressed to its monitoring owner or marked vacant`])) as Record<`reminder.${RungName}`, string>;

export const EVENT_KINDS = {
  'workspace.opened': 'a sandbox workspace opened',
  'tenant.opened': 'a sandbox tenant opened',
  'firm.opened': 'a sandbox firm opened',
  'matter.opened': 'a Matter opened in intake, with the facts the Gate reads',
  'asset.minted': 'the Asset a Matter acts on, minted',
  stage: 'a Stage Verb committed: by the Gate (`proposedBy`), or by a Signer for a reserved act (`gigId`, `act`, `attestation`, and `receipt` for a filing)',
  'gig.posted': 'a reserved act journaled as a Gig for the supply network',
  'gig.sent_back': 'the Signer sent the work back to prepare, with its defects',
  'gig.declined': 'the Signer declined: the Matter waits on the Client',
  'client.direction': 'the Client\'s direction after a Declination',
  consent: 'the Client\'s consent to the Matter',
  'document.recorded': 'a document\'s metadata and sha256 recorded',
  terminal: 'the Matter ended: withdrawn, lapsed or referred out',
  lifecycle: 'the Matter fulfilled',
  'ladder.opened': 'a Deadline Ladder opened for an Asset',
  'ladder.ticked': 'the ladder moved toward its deadline by an explicit tick, crossing `rungs`',
  'ladder.acked': 'a named human acknowledged today\'s rung',
  'ladder.monitored': 'the ladder\'s monitoring owner named',
  'ladder.satisfied': 'an occurrence closed by evidence (a recurring ladder opens its next)',
  'ladder.resolved': 'the ladder closed at its terminal rung',
  ...reminders,
  'enrollment.opened': 'a member enrolled in a firm',
  'enrollment.amended': 'a member granted more to its firm',
  'enrollment.revoked': 'a member revoked its Enrollment',
  'firm.routing.declared': 'a firm declared its routing',
  'tenant.offers.declared': 'a Tenant declared its Offers',
  'tenant.routing.declared': 'a Tenant declared its routing',
  'conflicts.entry': 'a name hash appended to a conflicts ledger',
  'capability.recorded': 'a draft artifact\'s metadata recorded (never its text)',
  'capability.acted': 'an act completed on the simulated registry',
  'capability.escalated': 'a reserved act of the catalog posted as a Gig',
  'supply.callback.accepted': 'a signed supply-network callback accepted (its webhook-id)',
} as const satisfies Record<string, string>;

/** A kind a door answers. */
export type EventKind = keyof typeof EVENT_KINDS;

/** The service's own facts, in grains no door reads; what each records, and its data (no schema: the contract never answers them). */
export const INTERNAL_EVENT_KINDS = {
  'key.issued': 'an API key issued (its hash); data: keyId, keyHash, email, building, spendCeilingUsd, and on a successor ownerId, ownerStream (the first key\'s stream, which keeps the spend), predecessorId, predecessorHash',
  'key.rolled': 'an API key rolled: its successor issued in the same transaction; data: keyId, successorId, expiresAt (when the rolled key stops being honoured), secret (what the successor key is derived from, with the rolled key)',
  'key.revoked': 'an API key revoked by its holder, refused from then on; data: keyId, revokedAt',
  'key.used': 'an API key honoured, journaled at most once an hour per key and process (its last use, to the hour); data: keyId, usedAt',
  'key.spend.reserved': 'a paid act reserved against a key\'s spend ceiling; data: ref, amountUsd, act',
  'key.spend.released': 'a reservation released; data: ref, amountUsd, reason',
  'outbox.delivered': 'an effect the journal asked for, delivered; data: id, intent{grain, stream, seq, kind}, heldBy (a sandbox grain\'s)',
  'idempotency.claimed': 'a request under an Idempotency-Key committed (journaled with its command); data: fingerprint, expiresAt, wrote[], heldBy (a sandbox grain\'s)',
  'idempotency.answered': 'the answer kept for a request under an Idempotency-Key (journaled with its command when said before the commit, then naming what it wrote); data: fingerprint, expiresAt, wrote[]?, answer{status, headers, payload}, heldBy (a sandbox grain\'s)',
  'webhook.endpoint.created': 'a webhook endpoint registered; data: id, ownerGrain, url, events[], description, secret, fromSeq, heldBy (a sandbox grain\'s)',
  'webhook.attempt': 'one delivery attempt of a webhook event; data: deliveryId, eventId, type, source{grain, seq}, attempt, redelivery, outcome, final, responseStatus, durationMs, responseBody, error, attemptedAt',
  'webhook.endpoint.disabled': 'a webhook endpoint disabled, by its owner or after failing for 5 days; data: reason',
} as const satisfies Record<string, string>;
