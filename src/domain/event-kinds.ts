/**
 * Every kind of fact the journal holds, each with what it records and the
 * fields of its `data`: the closed set an event's `kind` is drawn from
 * (`EventKind`, on `TailEntry` and `JournalEntry` in the contract). A fact of a
 * kind not listed here fails the reply check of any test that reads it.
 *
 * `data` itself is published as a typed open map, its fields named here, not
 * as a union of one closed schema per kind: the serializer would resolve such
 * a union by validating every entry of every journal it writes, on the
 * hottest read there is (GET of a Matter).
 */
import { RUNGS } from '../../machines/deadline-ladder.ts';

export const EVENT_KINDS: Record<string, string> = {
  'workspace.opened': 'a sandbox workspace opened; data: expiresAt, ttlSeconds',
  'tenant.opened': 'a sandbox tenant opened; data: expiresAt, ttlSeconds',
  'firm.opened': 'a sandbox firm opened; data: expiresAt, ttlSeconds',
  'matter.opened': 'a Matter opened in intake; data: matterType, rail, jurisdiction, assetId, consumerPattern, client{id}, clientFixture, signals[], and as given: tenant, mint, offer, listFeeUsd, clientState, clientMandates, adversePartyHashes[]',
  'asset.minted': 'the Asset a Matter acts on, minted; data: kind, title, matterId',
  stage: 'a Stage Verb committed (by the Gate, or by a Signer for a reserved act); data: proposedBy (gate) or, for a reserved act, gigId, act, attestation{signedBy, credentialRef, artifactHash}, receipt',
  'gig.posted': 'a reserved act journaled as a Gig for the supply network; data: reservedAct, gigId',
  'gig.sent_back': 'the Signer sent the work back to prepare, with its defects; data: gigId, defects',
  'gig.declined': 'the Signer declined: the Matter waits on the Client; data: gigId, memo',
  'client.direction': 'the Client\'s direction after a Declination; data: instruction, authorizes, reopened, declinedAct',
  consent: 'the Client\'s consent to the Matter; data: scope',
  'document.recorded': 'a document\'s metadata and sha256 recorded; data: document{id, matterId, name, kind, sha256}',
  terminal: 'the Matter ended: withdrawn, lapsed or referred out; data: outcome, referredTo',
  lifecycle: 'the Matter fulfilled; data: receipt',
  'ladder.opened': 'a Deadline Ladder opened for an Asset; data: matterId, matterType, obligation, daysUntilDeadline, recurEveryDays, fixture, alarm',
  'ladder.ticked': 'the ladder moved toward its deadline by an explicit tick; data: days, from, to, occurrence, owner, rungs[{rung, atDaysRemaining}]',
  'ladder.acked': 'a named human acknowledged today\'s rung; data: atDaysRemaining, occurrence',
  'ladder.monitored': 'the ladder\'s monitoring owner named; data: signerId, previous',
  'ladder.satisfied': 'an occurrence closed by evidence; data: evidenceRef, occurrence, atDaysRemaining, closes, nextOccurrence, daysUntilDeadline',
  'ladder.resolved': 'the ladder closed at its terminal rung; data: outcome, occurrence',
  ...Object.fromEntries(RUNGS.map((rung) => [`reminder.${rung}`, `the ${rung.replace('_', ' ')} rung fired; data: rung, atDaysRemaining, occurrence, obligation, alarm`])),
  'enrollment.opened': 'a member enrolled in a firm; data: instrument, firmId, memberId, granted[], grants[], executedBy',
  'enrollment.amended': 'a member granted more to its firm; data: instrument, firmId, memberId, granted[], grants[], executedBy',
  'enrollment.revoked': 'a member revoked its Enrollment; data: instrument, firmId, memberId, revoked[], executedBy, reason',
  'firm.routing.declared': 'a firm declared its routing; data: routing (as declared)',
  'tenant.offers.declared': 'a Tenant declared its Offers; data: offers[{id, title, priceUsd, matterType, proofPredicate}]',
  'tenant.routing.declared': 'a Tenant declared its routing; data: routing{maxFeeUsd, jurisdictions}',
  'conflicts.entry': 'a name hash appended to a conflicts ledger; data: ledger{kind, id}, nameHash',
  'capability.recorded': 'a draft artifact\'s metadata recorded; data: route, artifactId, kind, title, sha256, bytes, and the caller\'s actor, mandate, verified when sent',
  'capability.acted': 'an act completed on the simulated registry; data: route, actId, priceUsd, receipt{id, registry, synthetic, …}, and the caller\'s actor, mandate, verified when sent',
  'capability.escalated': 'a reserved act of the catalog posted as a Gig; data: route, actId, gigId, credential, reservedAct, priceUsd, matterType, preferredSigner, and the caller\'s actor, mandate, verified when sent',
  'key.issued': 'an API key issued (its hash); data: keyId, keyHash, email, building, spendCeilingUsd',
  'key.spend.reserved': 'a paid act reserved against a key\'s spend ceiling; data: ref, amountUsd, act',
  'key.spend.released': 'a reservation released; data: ref, amountUsd, reason',
  'supply.callback.accepted': 'a signed supply-network callback accepted (its webhook-id); data: webhookId, digest, matterId, matterVersion',
  'outbox.delivered': 'an effect the journal asked for, delivered; data: id, intent{grain, stream, seq, kind}',
  'idempotency.claimed': 'a request under an Idempotency-Key committed (journaled with its command); data: fingerprint, expiresAt, wrote[]',
  'idempotency.answered': 'the answer kept for a request under an Idempotency-Key; data: fingerprint, expiresAt, answer{status, headers, payload}',
  'webhook.endpoint.created': 'a webhook endpoint registered; data: id, ownerGrain, url, events[], description, secret, fromSeq',
  'webhook.attempt': 'one delivery attempt of a webhook event; data: deliveryId, eventId, type, source{grain, seq}, attempt, redelivery, outcome, final, responseStatus, durationMs, responseBody, error, attemptedAt',
  'webhook.endpoint.disabled': 'a webhook endpoint disabled, by its owner or after failing for 5 days; data: reason',
};
