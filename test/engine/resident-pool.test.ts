/**
 * The resident pool's two bounds as a property: whatever entities enter,
 * grow, are touched, forgotten or busy, the events it counts are the events
 * its entities hold, and once nothing is busy both bounds hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/engine/entity.ts';
import { EVENTS_PER_RESIDENT_ACTOR, ResidentPool } from '../../src/engine/resident-pool.ts';

/** What the pool reads of an entity: its id, its stream's length, and a stop. */
class FakeEntity {
  stopped = false;
  constructor(
    readonly id: string,
    public version: number,
  ) {}
  stop(): void {
    this.stopped = true;
  }
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('keep' as const), id: fc.integer({ min: 0, max: 12 }), version: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ kind: fc.constant('grow' as const), id: fc.integer({ min: 0, max: 12 }), by: fc.integer({ min: 1, max: 120 }) }),
  fc.record({ kind: fc.constant('touch' as const), id: fc.integer({ min: 0, max: 12 }) }),
  fc.record({ kind: fc.constant('forget' as const), id: fc.integer({ min: 0, max: 12 }) }),
  fc.record({ kind: fc.constant('busy' as const), id: fc.integer({ min: 0, max: 12 }), busy: fc.boolean() }),
);

describe('ResidentPool', () => {
  it('counts the events its entities hold, and holds both bounds once nothing is busy', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const busy = new Set<string>();
        const pool = new ResidentPool(4, (id) => busy.has(id));
        // Every entity made, by id: the live one is the last.
        const made = new Map<string, FakeEntity>();
        for (const o of ops) {
          const id = `e${o.id}`;
          const entity = made.get(id);
          if (o.kind === 'keep') {
            const fresh = new FakeEntity(id, o.version);
            made.set(id, fresh);
            pool.keep(fresh as unknown as Entity);
          } else if (o.kind === 'grow' && entity && !entity.stopped) {
            // A commit: the entity is lengthened, then the pool told.
            entity.version += o.by;
            pool.grew(entity as unknown as Entity, o.by);
          } else if (o.kind === 'touch' && entity) pool.touch(entity as unknown as Entity);
          else if (o.kind === 'forget') pool.forget(id);
          else if (o.kind === 'busy') (o.busy ? busy.add(id) : busy.delete(id));
          const resident = [...made.values()].filter((e) => pool.get(e.id) === (e as unknown as Entity));
          expect(pool.events).toBe(resident.reduce((sum, e) => sum + e.version, 0));
          expect(pool.size).toBe(resident.length);
          // What was passivated is stopped; what is resident is not.
          for (const e of resident) expect(e.stopped).toBe(false);
          if (busy.size === 0) {
            expect(pool.size).toBeLessThanOrEqual(4);
            expect(pool.events).toBeLessThanOrEqual(4 * EVENTS_PER_RESIDENT_ACTOR);
          }
        }
      }),
    );
  });

  it('passivates the least recently used idle entity first, passing over a busy one', () => {
    const busy = new Set(['a']);
    const pool = new ResidentPool(2, (id) => busy.has(id));
    const [a, b, c] = ['a', 'b', 'c'].map((id) => new FakeEntity(id, 1));
    for (const e of [a, b, c]) pool.keep(e as unknown as Entity);
    expect([pool.has('a'), pool.has('b'), pool.has('c')]).toEqual([true, false, true]);
    expect(b.stopped).toBe(true);
    // `a` idle and touched: `c` is now the least recently used.
    busy.clear();
    pool.touch(a as unknown as Entity);
    pool.keep(new FakeEntity('d', 1) as unknown as Entity);
    expect([pool.has('a'), pool.has('c'), pool.has('d')]).toEqual([true, false, true]);
  });
});
