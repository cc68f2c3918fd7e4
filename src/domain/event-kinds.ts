/**
 * Every kind of fact the journal holds, each with what it records: the closed
 * set an event's `kind` is drawn from (`TailEntry.kind` and
 * `JournalEntry.kind` in the contract). A fact of a kind not listed here fails
 * the reply check of any test that reads it.
 */
import { RUNGS } from '../../machines/deadline-ladder.ts';

export const EVENT_KINDS = {
  'workspace.opened': 'a sandbox workspace opened',
  'tenant.opened': 'a sandbox tenant opened',
  'firm.opened': 'a sandbox firm opened',
  'matter.opened': 'a Matter opened in intake',
  'asset.minted': 'the Asset a Matter acts on, minted',
  stage: 'a Stage Verb committed (by the Gate, or by a Signer for a reserved act)',
  'gig.posted': 'a reserved act journaled as a Gig for the supply network',
  'gig.sent_back': 'the Signer sent the work back to prepare, with its defects',
  'gig.declined': 'the Signer declined: the Matter waits on the Client',
  'client.direction': 'the Client\'s direction after a Declination',
  consent: 'the Client\'s consent to the Matter',
  'document.recorded': 'a document\'s metadata and sha256 recorded',
  terminal: 'the Matter ended: withdrawn, lapsed or referred out',
  lifecycle: 'the Matter fulfilled',
  'ladder.opened': 'a Deadline Ladder opened for an Asset',
  'ladder.ticked': 'the ladder moved toward its deadline by an explicit tick',
  'ladder.acked': 'a named human acknowledged today\'s rung',
  'ladder.monitored': 'the ladder\'s monitoring owner named',
  'ladder.satisfied': 'an occurrence closed by evidence',
  'ladder.resolved': 'the ladder closed at its terminal rung',
  ...Object.fromEntries(RUNGS.map((rung) => [`reminder.${rung}`, `the ${rung.replace('_', ' ')} rung fired`])),
  'enrollment.opened': 'a member enrolled in a firm',
  'enrollment.amended': 'a member granted more to its firm',
  'enrollment.revoked': 'a member revoked its Enrollment',
  'firm.routing.declared': 'a firm declared its routing',
  'tenant.offers.declared': 'a Tenant declared its Offers',
  'tenant.routing.declared': 'a Tenant declared its routing',
  'conflicts.entry': 'a name hash appended to a conflicts ledger',
  'capability.recorded': 'a draft artifact\'s metadata recorded',
  'capability.acted': 'an act completed on the simulated registry',
  'capability.escalated': 'a reserved act of the catalog posted as a Gig',
  'key.issued': 'an API key issued (its hash)',
  'key.spend.reserved': 'a paid act reserved against a key\'s spend ceiling',
  'key.spend.released': 'a reservation released',
  'supply.callback.accepted': 'a signed supply-network callback accepted (its webhook-id)',
  'outbox.delivered': 'an effect the journal asked for, delivered',
} as Record<string, string>;
