/**
 * The Jurisdiction Rules table: a Matter's jurisdiction is derived from its
 * facts, first matching row wins. Patent-rail work sits with the federal
 * patent office whatever the Client's state; state-rail work sits in the
 * Client's state, or in the wildcard `US-*` when no state is given (the
 * Signer's own bar then decides where they may act).
 */
import type { MatterType, Rail } from './matter-types.ts';

export interface JurisdictionFacts {
  rail: Rail;
  matterType: MatterType;
  clientState?: string;
}

export interface JurisdictionRule {
  when: string;
  applies: (f: JurisdictionFacts) => boolean;
  jurisdiction: (f: JurisdictionFacts) => string;
}

export const JURISDICTION_RULES: readonly JurisdictionRule[] = [
  { when: 'rail is patent', applies: (f) => f.rail === 'patent', jurisdiction: () => 'US-USPTO' },
  { when: 'rail is state and clientState is given', applies: (f) => f.rail === 'state' && !!f.clientState, jurisdiction: (f) => `US-${f.clientState}` },
  { when: 'rail is state and no clientState', applies: (f) => f.rail === 'state', jurisdiction: () => 'US-*' },
];

export function deriveJurisdiction(facts: JurisdictionFacts): string {
  const rule = JURISDICTION_RULES.find((r) => r.applies(facts));
  return rule ? rule.jurisdiction(facts) : 'US-*';
}
