/**
 * Which grain a record lives in, and which grains a request reaches: the one
 * answer to "which records may this request see or touch".
 *
 * - A sandbox grain (workspace, tenant, firm) is named by its own id, whose
 *   prefix says its kind; the id is the capability, and its fixtures apply.
 * - The top level is production: the records an API key's requests create
 *   form a grain of their own, named by the key's id (never the key), so
 *   lists, tails and seq counters separate by construction. A key rolled
 *   from another (`keys.ts`) writes in the grain of the first: its owner's.
 * - A read by id at the top level, and the supply network's signed callback,
 *   reach every top-level grain (`TOP_LEVEL`): there the Matter's id (at least
 *   96 random bits), or the signature, is the capability.
 */
import { GRAIN_ID_PREFIX, type GrainKind } from '../domain/grain-kinds.ts';

/** The grain of the top-level records an owner's keys create: the id (`key_…`) of its first key (`Owner.id` in keys.ts). */
export const ownGrainOf = (keyId: string): string => keyId;

/**
 * Where a grain is asked for, "any top-level grain": a door that reaches
 * every key's records. Never a grain anything is written to.
 */
export const TOP_LEVEL = '*top-level';

/** The own grain of a top-level caller without a key: nothing is ever written there, so its lists and tails are empty. */
export const NO_GRAIN = '';

/** The one top-level grain of builds before records were owned: readable by id, writable by no key. */
const OWNERLESS_ROOT = 'root';

const KIND_OF_PREFIX = new Map<string, GrainKind>((Object.keys(GRAIN_ID_PREFIX) as GrainKind[]).map((kind) => [GRAIN_ID_PREFIX[kind], kind]));

/** The sandbox kind of a grain, read off its id; null for a top-level grain. */
export function sandboxKindOf(grain: string): GrainKind | null {
  return KIND_OF_PREFIX.get(grain.slice(0, grain.indexOf('_'))) ?? null;
}

/** The magic fixtures (Signers, Clients, Assets, the conflict party) behave as fixtures only inside sandbox grains. */
export const fixturesApply = (grain: string): boolean => sandboxKindOf(grain) !== null;

const isTopLevelGrain = (grain: string): boolean => grain.startsWith('key_') || grain === OWNERLESS_ROOT;

/** Does a request that asks for `wanted` reach a record journaled in `grain`? */
export const reaches = (wanted: string, grain: string): boolean => wanted === grain || (wanted === TOP_LEVEL && isTopLevelGrain(grain));
