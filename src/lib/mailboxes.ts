/**
 * Per-entity mailboxes: work for one key runs strictly one at a time, in
 * arrival order; different keys run in parallel. This is what serializes
 * concurrent commands on one Matter (or Ladder, or Enrollment).
 */
import { histogram, metricsOn, secondsSince } from './telemetry.ts';

const mailboxWait = histogram({
  name: 'legalwork_mailbox_wait_seconds',
  help: "How long work waited in its entity's mailbox (or behind an exclusive key) for the work queued before it: commands to one Matter queueing behind each other.",
  buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

export class Mailboxes {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    // Timed only where a sink records it: off, the work is queued as it is.
    const queued = metricsOn() ? performance.now() : 0;
    const run = queued
      ? () => {
          mailboxWait.observe(secondsSince(queued));
          return work();
        }
      : work;
    const result = previous.then(run, run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget an idle mailbox so a million touched keys do not pin memory.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  isBusy(key: string): boolean {
    return this.tails.has(key);
  }

  /** How many keys have work queued or running (an idle key holds none). */
  get size(): number {
    return this.tails.size;
  }
}
