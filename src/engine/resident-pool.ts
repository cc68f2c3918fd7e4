/**
 * The actors kept in memory, the least recently used first: bounded by how
 * many there are and by how many journal events they hold between them.
 *
 * A resident entity holds its whole stream (a Matter's reads answer its
 * journal whole), and its callers can lengthen a stream without end (a
 * Matter's documents, a Ladder's owner named again and again). A count alone
 * would let 20,000 long streams hold any amount of memory; the events they
 * hold are bounded too, so a few long streams push out many short ones, and
 * one longer than the whole bound stays only until the next entity is kept
 * or grows once its command is done.
 *
 * Events are counted, not bytes: a journal event is parsed from a body of at
 * most the request's limit (256 KiB), and most are well under 1 KiB.
 */
import { actorEvictions } from './engine-metrics.ts';
import type { Entity } from './entity.ts';

/** Events the pool holds on average per actor before it passivates for weight: a Matter walked to `fulfilled` with its documents holds 15 to 20. */
export const EVENTS_PER_RESIDENT_ACTOR = 25;

export class ResidentPool {
  private readonly entities = new Map<string, Entity>();
  /** The events the resident entities hold: the sum of their versions, kept as each enters, grows and leaves. */
  private held = 0;
  readonly maxEvents: number;

  constructor(
    readonly maxActors: number,
    /** Whether the entity has a command running or queued: it is never stopped under it. */
    private readonly busy: (id: string) => boolean,
  ) {
    this.maxEvents = maxActors * EVENTS_PER_RESIDENT_ACTOR;
  }

  get(id: string): Entity | undefined {
    return this.entities.get(id);
  }

  has(id: string): boolean {
    return this.entities.has(id);
  }

  get size(): number {
    return this.entities.size;
  }

  get events(): number {
    return this.held;
  }

  /** The entity was used: it is the last to be passivated. */
  touch(entity: Entity): void {
    if (this.entities.get(entity.id) !== entity) return;
    this.entities.delete(entity.id);
    this.entities.set(entity.id, entity);
  }

  /** Makes `entity` resident (in place of any other of its id), then passivates for room. */
  keep(entity: Entity): void {
    this.forget(entity.id);
    this.entities.set(entity.id, entity);
    this.held += entity.version;
    this.trim();
  }

  /** A commit lengthened `entity`'s stream by `events`: counted if it is the resident one, then room made. */
  grew(entity: Entity, events: number): void {
    if (this.entities.get(entity.id) !== entity) return;
    this.held += events;
    this.trim();
  }

  /** Forgets `id`'s entity (only `entity`, when named), without stopping it. */
  forget(id: string, entity?: Entity): void {
    const resident = this.entities.get(id);
    if (!resident || (entity && resident !== entity)) return;
    this.entities.delete(id);
    this.held -= resident.version;
  }

  private get within(): boolean {
    return this.entities.size <= this.maxActors && this.held <= this.maxEvents;
  }

  /** Stops the least recently used idle entities until both bounds hold again; a busy one is passed over until it is idle. */
  private trim(): void {
    for (const [id, idle] of this.entities) {
      if (this.within) return;
      if (this.busy(id)) continue;
      this.forget(id);
      idle.stop();
      actorEvictions.inc();
    }
  }
}
