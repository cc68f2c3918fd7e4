/**
 * A fact: what a machine emits for each event it accepts, and what the
 * supervisor journals (stamped, tied to its cause). One shape for every
 * machine and for the plain streams the engine writes without one.
 */
export interface Fact {
  /** The journal kind (`stage`, `ladder.ticked`, …). */
  kind: string;
  verb?: string;
  /** Who committed it: the Gate, a Signer, the Client, a member. */
  by: string;
  /** The human (or Signer) who spoke, which puts the fact on the `time` feed. */
  actor?: string;
  /** Whom a reminder is addressed to. */
  deliverTo?: string;
  note?: string;
  /** The tail's one-line summary; the note, or the kind and verb, when absent. */
  summary?: string;
  data: Record<string, unknown>;
}

/** A fact as a machine emits it: XState's emitted events carry a `type`. */
export type EmittedFact = Fact & { type: 'fact' };

export const fact = (f: Fact): EmittedFact => ({ type: 'fact', ...f });
