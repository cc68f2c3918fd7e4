/**
 * The spec's "Deadline ladder moves" table, as data. A test holds
 * `deadlineLadderMachine`'s edges equal to these rows, so neither can drift.
 *
 * `to: null` is a targetless transition: the ladder stays in its state and the
 * fact is journaled (a tick that leaves days on the clock, an ack, naming an
 * owner). There is no edge out of `resolved`: a resolved ladder is forever.
 */
import type { Edge } from './edges.ts';

export const deadlineLadderTable: readonly Edge[] = [
  // vacant -> nominal: naming a monitoring owner (a Signer id or `platform`) clears the vacancy alarm.
  { from: 'open', event: 'MONITOR', guard: 'signerNamed', to: null, refuses: false },
  // Closure by evidence only: a one-shot ladder closes forever ...
  { from: 'open', event: 'SATISFY', guard: 'oneShotEvidence', to: 'resolved', refuses: false },
  // ... a recurring one records the occurrence and rolls one cadence forward, never closing.
  { from: 'open', event: 'SATISFY', guard: 'recurringEvidence', to: 'open.counting', refuses: false },
  // Explicit ticks only: fewer days remain, rungs fire; a tick may not pass the deadline.
  { from: 'open.counting', event: 'TICK', guard: 'landsOnTerminalRung', to: 'open.terminalRung', refuses: false },
  { from: 'open.counting', event: 'TICK', guard: 'landsBeforeDeadline', to: null, refuses: false },
  // The daily human acknowledgment, owed from 7 days to 1 day remaining, once a day.
  { from: 'open.counting', event: 'ACK', guard: 'ackDue', to: null, refuses: false },
  // At the terminal rung (0 days), one of the four outcomes is the permanent closure.
  { from: 'open.terminalRung', event: 'RESOLVE', guard: 'outcomeListed', to: 'resolved', refuses: false },
];
