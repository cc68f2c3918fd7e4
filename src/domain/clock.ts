/**
 * The clock port. Journal entries are stamped through it; machines never read
 * it (time reaches them inside events), and Deadline Ladders move on ticks only.
 *
 * `LEGALWORK_CLOCK=fixed:<ISO instant>` gives a deterministic clock that starts
 * there and moves one millisecond per stamp (one stamp per journaled event).
 */
export interface Clock {
  /** The instant for the next journaled event. */
  stamp(): string;
  /**
   * The instant now, taking no stamp: what a read measures an age to (how
   * long a Matter has waited in its state). A fixed clock is where its next
   * stamp will be, so its ages are as deterministic as its stamps.
   */
  now(): string;
}

export const systemClock: Clock = { stamp: () => new Date().toISOString(), now: () => new Date().toISOString() };

export function fixedClock(startIso: string): Clock {
  const start = Date.parse(startIso);
  if (Number.isNaN(start)) throw new Error(`LEGALWORK_CLOCK: "${startIso}" is not an ISO 8601 instant`);
  let ticks = 0;
  return { stamp: () => new Date(start + ticks++).toISOString(), now: () => new Date(start + ticks).toISOString() };
}

export function clockFromEnv(value: string | undefined): Clock {
  if (!value || value === 'system') return systemClock;
  if (value.startsWith('fixed:')) return fixedClock(value.slice('fixed:'.length));
  throw new Error(`LEGALWORK_CLOCK must be "system" or "fixed:<ISO instant>", got "${value}"`);
}
