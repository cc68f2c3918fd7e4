/**
 * The Gate's own rules beside the machine's guards. Tenant Guardrails bind
 * mechanics only (fee caps, jurisdiction allowlists); Client Mandates alone
 * bind the merits. Each check names the rule that refused, as a decider
 * does: a verdict by name, which an advance hands to the Matter's decider
 * (`machines/matter.decide.ts`) and a mint refuses with outright.
 */
import type { Refusing } from '../../machines/decision.ts';
import type { Refusal } from './refusal.ts';
import { refusalOf } from './refusals.ts';

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
export function mechanicsVerdict(facts: MechanicsFacts, ...guardrails: Array<Guardrails | undefined>): Refusing<'GATE_MECHANICS'> | null {
  for (const g of guardrails) {
    if (!g) continue;
    if (g.maxFeeUsd !== undefined && facts.listFeeUsd !== undefined && facts.listFeeUsd > g.maxFeeUsd) {
      return { code: 'GATE_MECHANICS', args: { listFeeUsd: facts.listFeeUsd, maxFeeUsd: g.maxFeeUsd }, extra: { limit: { maxFeeUsd: g.maxFeeUsd } } };
    }
    if (g.jurisdictions && !g.jurisdictions.includes(facts.jurisdiction)) {
      return { code: 'GATE_MECHANICS', args: { jurisdiction: facts.jurisdiction, allowlist: g.jurisdictions }, extra: { limit: { jurisdictions: g.jurisdictions } } };
    }
  }
  return null;
}

/** Merits: a proposed settlement may not fall below the Client's floor. */
export function meritsVerdict(merits: Record<string, unknown> | undefined, mandates: Mandates | undefined): Refusing<'GATE_MERITS'> | null {
  const proposed = merits?.settlementUsd;
  const floor = mandates?.settlementFloor;
  return typeof proposed === 'number' && typeof floor === 'number' && proposed < floor ? { code: 'GATE_MERITS', args: { proposed, floor } } : null;
}

/** The mechanics verdict as the catalog's refusal (null: they hold). */
export const mechanicsRefusal = (facts: MechanicsFacts, ...guardrails: Array<Guardrails | undefined>): Refusal | null => refusalOrNull(mechanicsVerdict(facts, ...guardrails));

/** The merits verdict as the catalog's refusal (null: they hold). */
export const meritsRefusal = (merits: Record<string, unknown> | undefined, mandates: Mandates | undefined): Refusal | null => refusalOrNull(meritsVerdict(merits, mandates));

const refusalOrNull = (verdict: Refusing | null): Refusal | null => (verdict ? refusalOf(verdict) : null);
