/**
 * A map that keeps only the `capacity` entries set or used most recently.
 * Every cache of the service is one (stream heads and grain seqs, key
 * records, grains, kept idempotent answers, stored states, initial states):
 * each holds what the journal can always give back, and a long-running
 * process meets ever more of it (every Matter, every key), so none may grow
 * with what it has seen. Past the capacity the entry set or used longest ago
 * is forgotten. (A Map iterates in insertion order: re-inserting an entry
 * makes it the newest, and the first key is the oldest.)
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  /** The entry as it stands; reading it does not make it recent (`use` does). */
  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The entry, made the most recently used. */
  use(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  /** Sets the entry as the most recent; past the capacity the oldest is forgotten. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
