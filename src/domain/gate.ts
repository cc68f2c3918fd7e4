/**
 * The Gate's own rules beside the machine's guards. Tenant Guardrails bind
 * mechanics only (fee caps, jurisdiction allowlists); Client Mandates alone
 * bind the merits. Each check names the rule that refused.
 */
import type { Refusal } from './refusal.ts';
import { refusal } from './refusals.ts';

export interface Guardrails {
  maxFeeUsd?: number;
  jurisdictions?: string[];
}

export interface Mandates {
  settlementFloor?: number;
}

export interface MechanicsFacts {
  listFeeUsd?: number;
  jurisdiction: string;
}

/** Mechanics: the list fee under every declared cap, the jurisdiction inside the allowlist. */
export function mechanicsRefusal(facts: MechanicsFacts, ...guardrails: Array<Guardrails | undefined>): Refusal | null {
  for (const g of guardrails) {
    if (!g) continue;
    if (g.maxFeeUsd !== undefined && facts.listFeeUsd !== undefined && facts.listFeeUsd > g.maxFeeUsd) {
      return refusal('GATE_MECHANICS', { listFeeUsd: facts.listFeeUsd, maxFeeUsd: g.maxFeeUsd }, { limit: { maxFeeUsd: g.maxFeeUsd } });
    }
    if (g.jurisdictions && !g.jurisdictions.includes(facts.jurisdiction)) {
      return refusal('GATE_MECHANICS', { jurisdiction: facts.jurisdiction, allowlist: g.jurisdictions }, { limit: { jurisdictions: g.jurisdictions } });
    }
  }
  return null;
}

/** Merits: a proposed settlement may not fall below the Client's floor. */
export function meritsRefusal(merits: Record<string, unknown> | undefined, mandates: Mandates | undefined): Refusal | null {
  const proposed = merits?.settlementUsd;
  const floor = mandates?.settlementFloor;
  if (typeof proposed === 'number' && typeof floor === 'number' && proposed < floor) {
    return refusal('GATE_MERITS', { proposed, floor });
  }
  return null;
}
