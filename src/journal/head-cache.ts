/**
 * The last version of each stream (or seq of each grain) a journal wrote,
 * kept so that an append checks its expected version without a query, and
 * bounded: a long-running process writes to ever more streams (every Matter,
 * every Idempotency-Key's record), and an unbounded map of them grew the
 * soak's RSS by about 200 MiB in 8 minutes. Past the capacity the entry
 * written longest ago is forgotten; a miss costs one indexed lookup of the
 * stream's head, as after a restart.
 */
export class HeadCache {
  private readonly heads = new Map<string, number>();

  constructor(readonly capacity: number) {}

  get(key: string): number | undefined {
    return this.heads.get(key);
  }

  /** A head just committed: it becomes the most recently written. */
  set(key: string, head: number): void {
    this.heads.delete(key);
    this.heads.set(key, head);
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value!);
  }

  get size(): number {
    return this.heads.size;
  }
}
