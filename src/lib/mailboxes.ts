/**
 * Per-entity mailboxes: work for one key runs strictly one at a time, in
 * arrival order; different keys run in parallel. This is what serializes
 * concurrent commands on one Matter (or Ladder, or Enrollment).
 */
export class Mailboxes {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
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
