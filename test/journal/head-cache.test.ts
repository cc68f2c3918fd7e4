import { describe, expect, it } from 'vitest';
import { HeadCache } from '../../src/journal/head-cache.ts';

describe('the journal head cache', () => {
  it('forgets the head written longest ago past its capacity; a head written again is the newest', () => {
    const heads = new HeadCache(2);
    heads.set('a', 1);
    heads.set('b', 1);
    heads.set('a', 2);
    heads.set('c', 1);
    expect([heads.get('a'), heads.get('b'), heads.get('c'), heads.size]).toEqual([2, undefined, 1, 2]);
  });
});
