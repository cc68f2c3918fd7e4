/**
 * The Matter transition table of the spec ("States and transitions"), as data.
 * `test/machines/matter.table.test.ts` holds `matterMachine`'s edges equal to
 * these rows, so neither can drift from the other.
 *
 * `to: null` is a targetless transition (the Matter stays where it is, the fact
 * is journaled); `refuses: true` marks an event a state declares only to refuse.
 */
import type { Edge } from './edges.ts';

export const matterTable: readonly Edge[] = [
  // Any open stage: consent, Client direction and document records are journaled in place.
  { from: 'open', event: 'CONSENT', guard: null, to: null, refuses: false },
  { from: 'open', event: 'CLIENT_DIRECTION', guard: null, to: null, refuses: false },
  { from: 'open', event: 'RECORD_DOCUMENT', guard: null, to: null, refuses: false },
  // The terminal door's predicates; a terminal is forever.
  { from: 'open', event: 'WITHDRAW', guard: 'byClient', to: 'withdrawn', refuses: false },
  { from: 'open', event: 'LAPSE', guard: 'confirmedUnresponsiveTwice', to: 'lapsed', refuses: false },
  { from: 'open', event: 'REFER_OUT', guard: 'referredToPresent', to: 'referred_out', refuses: false },
  // Open work commits through the Gate; B2A2D cannot pass intake without journaled consent.
  { from: 'open.intake', event: 'ADVANCE', guard: 'consentSatisfied', to: 'open.prepare', refuses: false },
  { from: 'open.prepare', event: 'ADVANCE', guard: null, to: 'open.examine', refuses: false },
  { from: 'open.examine', event: 'ADVANCE', guard: null, to: 'open.review', refuses: false },
  // The reserved acts sign and file escalate as a Gig.
  { from: 'open.review', event: 'ESCALATE', guard: null, to: 'open.waiting_on_signer', refuses: false },
  { from: 'open.sign', event: 'ESCALATE', guard: null, to: 'open.waiting_on_signer', refuses: false },
  // fulfilled is reachable only off a filed receipt.
  { from: 'open.file', event: 'FILE_RECEIPT', guard: 'receiptOnFile', to: 'fulfilled', refuses: false },
  // The Signer's three answers.
  { from: 'open.waiting_on_signer', event: 'GIG_ATTESTED', guard: 'pendingActIsSign', to: 'open.sign', refuses: false },
  { from: 'open.waiting_on_signer', event: 'GIG_ATTESTED', guard: 'pendingActIsFile', to: 'open.file', refuses: false },
  { from: 'open.waiting_on_signer', event: 'GIG_SENT_BACK', guard: 'gigMatches', to: 'open.prepare', refuses: false },
  { from: 'open.waiting_on_signer', event: 'GIG_DECLINED', guard: 'gigMatches', to: 'open.needs_client_direction', refuses: false },
  // The terminal door answers 409 while a Signer holds the Gig.
  { from: 'open.waiting_on_signer', event: 'WITHDRAW', guard: null, to: null, refuses: true },
  { from: 'open.waiting_on_signer', event: 'LAPSE', guard: null, to: null, refuses: true },
  { from: 'open.waiting_on_signer', event: 'REFER_OUT', guard: null, to: null, refuses: true },
  // A Declination is final until the Client speaks; the direction reopens before the declined act.
  { from: 'open.needs_client_direction', event: 'CLIENT_DIRECTION', guard: 'declinedActWasSign', to: 'open.review', refuses: false },
  { from: 'open.needs_client_direction', event: 'CLIENT_DIRECTION', guard: 'declinedActWasFile', to: 'open.sign', refuses: false },
];
