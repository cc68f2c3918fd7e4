import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../src/lib/recent-map.ts';

describe('RecentMap', () => {
  it('forgets the entry set longest ago past its capacity; an entry set again is the newest', () => {
    const heads = new RecentMap<string, number>(2);
    heads.set('a', 1);
    heads.set('b', 1);
    heads.set('a', 2);
    heads.set('c', 1);
    expect([heads.get('a'), heads.get('b'), heads.get('c'), heads.size]).toEqual([2, undefined, 1, 2]);
  });

  it('makes an entry recent when it is used, not when it is only read', () => {
    const read = new RecentMap<string, number>(2);
    read.set('a', 1);
    read.set('b', 2);
    read.get('a');
    read.set('c', 3);
    expect(read.get('a')).toBeUndefined();
    const used = new RecentMap<string, number>(2);
    used.set('a', 1);
    used.set('b', 2);
    expect(used.use('a')).toBe(1);
    used.set('c', 3);
    expect([used.get('a'), used.get('b'), used.get('c')]).toEqual([1, undefined, 3]);
  });

  it('never holds more than its capacity, and holds the most recent entries of any sequence of sets and uses', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 15 }))), (capacity, steps) => {
        const map = new RecentMap<number, number>(capacity);
        const order: number[] = [];
        for (const [isSet, key] of steps) {
          if (isSet) map.set(key, key);
          else if (map.use(key) === undefined) continue;
          const at = order.indexOf(key);
          if (at >= 0) order.splice(at, 1);
          order.push(key);
          if (order.length > capacity) order.shift();
          expect(map.size).toBeLessThanOrEqual(capacity);
        }
        for (const key of order) expect(map.get(key)).toBe(key);
        expect(map.size).toBe(order.length);
      }),
    );
  });
});
