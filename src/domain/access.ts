/**
 * The access-tier ladder, in ascending order, and the refusals of doors that
 * need a tier this preview does not run. One definition: /icp.json, the
 * capability card and every BLOCKED answer read it from here.
 */
import { refusal } from './refusals.ts';

export const ACCESS_TIERS = ['anonymous', 'identified', 'credential_verified', 'delegated'] as const;
export type AccessTier = (typeof ACCESS_TIERS)[number];

export interface TierRung {
  tier: AccessTier;
  live: boolean;
  grants: string;
  how: string;
  note?: string;
}

export const TIER_LADDER: readonly TierRung[] = [
  {
    tier: 'anonymous',
    live: true,
    grants: 'every read, sandbox provisioning (POST /workspaces, /tenants, /firms) and everything inside a sandbox grain',
    how: 'send nothing: no key, no sign-in',
  },
  {
    tier: 'identified',
    live: true,
    grants: 'writes on the top-level surface (Matters, orders, the record and act routes of the capability catalog) and the lists and tails of the records the key created, which belong to it alone; under the key\'s hard spend ceiling; one key covers the whole surface',
    how: 'POST /keys with your email (optional building, spendCeilingUsd); send Authorization: Bearer <key>',
    note: 'the key binds your calls to the email you gave; this preview wires no identity-provider sign-in, so the email is recorded as given, not verified',
  },
  {
    tier: 'credential_verified',
    live: false,
    grants: 'doors gated by requiresAccess (restricted upstreams) and the per-practitioner conflicts ledgers on the top-level surface',
    how: 'licence verification by the identity provider, fresh at act-class',
    note: 'not live in this preview: doors that need it answer 403 BLOCKED naming this upgrade path',
  },
  {
    tier: 'delegated',
    live: false,
    grants: 'an agent acting under scoped authority a verified principal granted',
    how: 'a verified principal grants a mandate; the agent presents it as X-Mandate, naming itself in X-Actor',
    note: 'X-Actor and X-Mandate are carried as provenance and never trusted as proof: no mandate verifier is live, so a door that needs a proven grant refuses and names the cure',
  },
];

const rungOf = (tier: AccessTier): TierRung => TIER_LADDER.find((r) => r.tier === tier)!;

/** A restricted upstream needs a live credential; none is live, so the door is BLOCKED, never degraded. */
export function accessBlocked(access: string, door: string) {
  const upgrade = rungOf('credential_verified');
  return refusal('ACCESS_REQUIRED', { door, access, how: upgrade.how }, { requiresAccess: access, upgrade: { tier: upgrade.tier, how: upgrade.how, live: upgrade.live } });
}
