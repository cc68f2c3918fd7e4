/**
 * Request schemas of the sandbox grains (tenants, firms, conflicts ledgers),
 * and the key screens that word the refusals a strict schema would only call
 * "unknown field": a Tenant or firm may declare mechanics, never the merits,
 * never an actor's act, and never a percent-of-outcome price.
 */
import { Type } from '@sinclair/typebox';
import { MATTER_TYPES } from '../domain/matter-types.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { ENROLLMENT_GRANTS } from '../../machines/enrollment.ts';
import { PROVISIONAL_OFFER } from '../domain/fixtures.ts';
import { EXAMPLE_SHA256, Enum, Id, Money, Opt, Sha256Hex, Strict, Text } from './common.ts';
import { SHA256_HEX } from '../domain/hash.ts';


export const TenantParams = Type.Object({ tenantId: Id });
export const FirmParams = Type.Object({ firmId: Id });
export const FirmMemberParams = Type.Object({ firmId: Id, memberId: Id });
export const PractitionerParams = Type.Object({ practitionerId: Id });

/** A flat price: a number of USD. A percent-of-outcome price has no way to be written here. */
const Offer = Strict({
  id: Id,
  title: Text(200),
  priceUsd: Money,
  matterType: Opt(Enum(MATTER_TYPES, 'the ratified matter type this Offer mints')),
  proofPredicate: Opt(Text(500)),
});
export const OffersBody = Type.Array(Offer, { maxItems: 100, description: 'the Offers a Tenant declares; the list replaces the previous declaration. Prices are flat USD: a percentage of an outcome is refused 422 PERCENTAGE_PRICE', examples: [[{ id: PROVISIONAL_OFFER, title: 'Provisional patent application', priceUsd: 199, matterType: 'patent_provisional' }]] });

export const TenantRoutingBody = Strict({
  maxFeeUsd: Money,
  jurisdictions: Opt(Type.Array(Text(20), { maxItems: 60, uniqueItems: true })),
}, { description: 'routing mechanics only: a merits-bearing key (settlement, disclosure, mandate, advice, strategy) is refused 422 MERITS_BEARING_KEY', examples: [{ maxFeeUsd: 500, jurisdictions: ['US'] }] });

export const EnrollmentBody = Strict({
  memberId: Id,
  // The enum is checked by the route so an unknown grant is refused by name.
  grants: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: ENROLLMENT_GRANTS.length, uniqueItems: true, description: `of ${ENROLLMENT_GRANTS.join(', ')}; roster when left out` })),
}, { description: 'a member executes grants: `memberId` is a fixture member (GET /firms/{firmId}/fixtures); another is 422 UNKNOWN_MEMBER', examples: [{ memberId: 'mb_fixture_eligible', grants: ['roster', 'remittance'] }] });

const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '24-hour HH:MM' });
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const ParticipationWindow = Strict({ day: Enum(WEEKDAYS), from: HHMM, to: HHMM, timezone: Opt(Text(64)) });
const MemberOptIn = Strict({ memberId: Id, matterTypes: Opt(Type.Array(Enum(MATTER_TYPES), { maxItems: MATTER_TYPES.length, uniqueItems: true })) });
export const FirmRoutingBody = Strict({
  participationWindows: Opt(Type.Array(ParticipationWindow, { maxItems: 70 })),
  memberOptIns: Opt(Type.Array(MemberOptIn, { maxItems: 100 })),
  // `firm` is in the enum so the door can answer it 403 BLOCKED rather than 422.
  remittanceDesignation: Opt(Enum(['individual', 'firm'] as const, 'individual: each member is paid; firm is BLOCKED (403 REMITTANCE_TO_FIRM)')),
}, { description: 'routing mechanics only: merits-bearing and actor-shaped keys are refused; an opt-in needs the member\'s live Enrollment with the routing grant', examples: [{ participationWindows: [{ day: 'mon', from: '09:00', to: '17:00', timezone: 'America/New_York' }], remittanceDesignation: 'individual' }] });

export const ConflictEntryBody = Strict({ nameHash: Sha256Hex }, { description: 'the sha256 of a name, hashed by the caller: the service never sees the name', examples: [{ nameHash: EXAMPLE_SHA256 }] });
export const PrescreenBody = Strict({ nameHashes: Type.Array(Sha256Hex, { minItems: 1, maxItems: 1000 }) }, { description: 'the name hashes to check against this one ledger', examples: [{ nameHashes: [EXAMPLE_SHA256] }] });

/**
 * 422 naming the rule when a conflicts hash is not sha256 hex: the platform
 * holds hashes only, so a plaintext name (or any other shape) is refused by
 * name before the schema speaks.
 */
export function nameHashRefusal(body: unknown): Refusal | null {
  if (body === null || typeof body !== 'object') return null;
  const b: { nameHash?: unknown; nameHashes?: unknown } = body;
  if ('nameHash' in b && (typeof b.nameHash !== 'string' || !SHA256_HEX.test(b.nameHash))) {
    return refusal('NAME_HASH_NOT_SHA256', { field: 'body.nameHash' });
  }
  if ('nameHashes' in b && Array.isArray(b.nameHashes)) {
    if (b.nameHashes.length === 0) return refusal('NAME_HASHES_EMPTY', {});
    const i = b.nameHashes.findIndex((h) => typeof h !== 'string' || !SHA256_HEX.test(h));
    if (i >= 0) return refusal('NAME_HASH_NOT_SHA256', { field: `body.nameHashes[${i}]` });
  }
  return null;
}

/** Keys that would bind the merits: only Client Mandates may. */
const MERITS_KEY = /settle|disclos|merit|mandate|advice|advise|strategy|verdict/i;
/** Keys that would make a firm act as a marketplace actor. */
const ACTOR_KEY = /claim|substitut|reserv|attest|scor(e|ing)|^(sign|signs|signed|signing|signature|signer)$/i;
/** Keys that would express a price as a share of something. */
const PERCENT_KEY = /percent|pct|share|contingen|commission|ofoutcome|basispoint|bps|ratio|fraction/i;

/** Every key of a JSON value at any depth, with its dotted path. */
function* keysOf(value: unknown, path: string): Generator<[string, string]> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* keysOf(value[i], `${path}[${i}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      yield [key, `${path}.${key}`];
      yield* keysOf(inner, `${path}.${key}`);
    }
  }
}

/** 422 for a merits-bearing key anywhere in a Tenant's or firm's declaration. */
export function meritsKeyRefusal(body: unknown, who: 'Tenant' | 'firm'): Refusal | null {
  for (const [key, path] of keysOf(body, 'body')) {
    if (MERITS_KEY.test(key)) {
      return refusal('MERITS_BEARING_KEY', { path, who }, { key });
    }
  }
  return null;
}

/** 422 for an actor-shaped key in a firm's declaration: a firm is an envelope, never an actor. */
export function actorKeyRefusal(body: unknown): Refusal | null {
  for (const [key, path] of keysOf(body, 'body')) {
    if (ACTOR_KEY.test(key)) {
      return refusal('ACTOR_SHAPED_KEY', { path }, { key });
    }
  }
  return null;
}

/** 422 for anything percent-shaped in a price declaration: prices are flat USD only. */
export function percentRefusal(body: unknown, priceKeys: readonly string[]): Refusal | null {
  for (const [key, path] of keysOf(body, 'body')) {
    if (PERCENT_KEY.test(key)) {
      return refusal('PERCENTAGE_PRICE', { path, shape: 'share' }, { key });
    }
  }
  const walk = (value: unknown, path: string): Refusal | null => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const r = walk(value[i], `${path}[${i}]`);
        if (r) return r;
      }
      return null;
    }
    if (value === null || typeof value !== 'object') return null;
    for (const key of priceKeys) {
      if (!(key in value)) continue;
      const price: unknown = Reflect.get(value, key);
      if (typeof price === 'string' && /%|percent|pct/i.test(price)) {
        return refusal('PERCENTAGE_PRICE', { path: `${path}.${key}`, shape: 'percent', price }, { key });
      }
      if (price !== null && typeof price === 'object') {
        return refusal('PERCENTAGE_PRICE', { path: `${path}.${key}`, shape: 'object' }, { key });
      }
    }
    for (const [key, inner] of Object.entries(value)) {
      const r = walk(inner, `${path}.${key}`);
      if (r) return r;
    }
    return null;
  };
  return walk(body, 'body');
}
