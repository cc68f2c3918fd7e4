/**
 * The listed capability catalog as data: every route, its purpose, its effect
 * (read, record, act) and its gate. The routes, /pricing, the capability card
 * and the docs page all read it from here, so they cannot disagree.
 *
 * Gates are checked fresh at call time: `requiresAccess` names a restricted
 * upstream consumable only with a live credential (none is live, so those
 * doors answer BLOCKED); `requiresSigner` names the credential a licensed
 * Signer must hold to perform a reserved act (it is routed to one).
 */
import type { MatterType } from '../matter-types.ts';
import { POSTED_PRICES } from '../pricing.ts';

export type Effect = 'read' | 'record' | 'act';

export type Gate =
  | { kind: 'none' }
  | { kind: 'requiresAccess'; access: 'pacer' | 'patent-center-practitioner' }
  | { kind: 'requiresSigner'; credential: 'uspto-registration' | 'state-bar' };

export interface Capability {
  method: 'GET' | 'POST';
  /** Fastify path syntax (`:param`). */
  path: string;
  purpose: string;
  effect: Effect;
  gate: Gate;
  /** Acts only: the posted flat price the caller's spend ceiling counts. */
  priceUsd?: number;
  /** For a reserved act: which act of the supply network it is posted as. */
  reservedAct?: 'sign' | 'file';
  matterType?: MatterType;
}

const none: Gate = { kind: 'none' };
/** A restricted court-records upstream. */
const pacer: Gate = { kind: 'requiresAccess', access: 'pacer' };
/** The patent office practitioner portal. */
const patentCenter: Gate = { kind: 'requiresAccess', access: 'patent-center-practitioner' };
/** Checked against the patent office roster of registered practitioners. */
const uspto: Gate = { kind: 'requiresSigner', credential: 'uspto-registration' };
/** Checked against the state bar licence registry. */
const stateBar: Gate = { kind: 'requiresSigner', credential: 'state-bar' };

/** An act that runs as a Matter type is priced at that type's posted Product Fee. */
const postedAs = (matterType: MatterType) => ({ priceUsd: POSTED_PRICES[matterType].productFeeUsd, matterType });
/** An assignment recording has no Matter type of its own: its own flat posted price. */
const RECORD_ASSIGNMENT_PRICE_USD = 49;

export const CAPABILITIES: readonly Capability[] = [
  { method: 'GET', path: '/patent/search', purpose: 'search patents by words of the title, abstract or assignee (query q)', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number', purpose: 'a patent\'s bibliographic record', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/family', purpose: 'the patent family (priority and continuations)', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/status', purpose: 'legal status and its history', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/assignment', purpose: 'recorded assignments (chain of title)', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/citations', purpose: 'references cited and citing', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/ptab', purpose: 'trial board proceedings naming the patent', effect: 'read', gate: none },
  { method: 'GET', path: '/patent/:number/maintenance', purpose: 'maintenance-fee windows and their state', effect: 'read', gate: none },
  { method: 'GET', path: '/trademark/:serial/status', purpose: 'a trademark application\'s status', effect: 'read', gate: none },
  { method: 'GET', path: '/entity/:state/:id/standing', purpose: 'an entity\'s standing with its state registry', effect: 'read', gate: none },
  { method: 'GET', path: '/lien/ucc/:state/:filing', purpose: 'a UCC financing statement', effect: 'read', gate: none },
  { method: 'GET', path: '/court/:district/:case/docket', purpose: 'a federal court docket', effect: 'read', gate: pacer },
  { method: 'POST', path: '/patent/draft-claims', purpose: 'draft claims from an invention summary and its features', effect: 'record', gate: none },
  { method: 'POST', path: '/patent/draft-spec', purpose: 'draft a specification skeleton', effect: 'record', gate: none },
  { method: 'POST', path: '/patent/prior-art-report', purpose: 'a prior-art report over the synthetic corpus', effect: 'record', gate: none },
  { method: 'POST', path: '/patent/oa-response', purpose: 'an office-action response outline', effect: 'record', gate: none },
  { method: 'POST', path: '/patent/ids', purpose: 'an information disclosure statement listing', effect: 'record', gate: none },
  { method: 'POST', path: '/trademark/oa-response-draft', purpose: 'a trademark office-action response draft', effect: 'record', gate: none },
  { method: 'POST', path: '/contract/review', purpose: 'a structural review of a contract: which standard clauses appear', effect: 'record', gate: none },
  { method: 'POST', path: '/demand-letter/draft', purpose: 'a demand-letter draft (unsigned, not on letterhead)', effect: 'record', gate: none },
  { method: 'POST', path: '/entity/de/formation-docs', purpose: 'Delaware formation documents, drafted', effect: 'record', gate: none },
  { method: 'POST', path: '/docket-watch', purpose: 'watch a docket for new entries', effect: 'record', gate: patentCenter },
  { method: 'POST', path: '/patent/docket-watch', purpose: 'watch a patent application\'s docket', effect: 'record', gate: patentCenter },
  { method: 'POST', path: '/entity/de/form', purpose: 'form a Delaware entity from drafted documents', effect: 'act', gate: none, ...postedAs('entity_formation') },
  { method: 'POST', path: '/patent/file-provisional', purpose: 'file a provisional patent application', effect: 'act', gate: none, ...postedAs('patent_provisional') },
  { method: 'POST', path: '/patent/pay-maintenance', purpose: 'pay a maintenance fee in an open window', effect: 'act', gate: none, ...postedAs('patent_maintenance') },
  { method: 'POST', path: '/patent/file-utility', purpose: 'file a utility patent application', effect: 'act', gate: uspto, ...postedAs('patent_utility'), reservedAct: 'file' },
  { method: 'POST', path: '/patent/record-assignment', purpose: 'record an assignment with the patent office', effect: 'act', gate: uspto, priceUsd: RECORD_ASSIGNMENT_PRICE_USD, reservedAct: 'file' },
  { method: 'POST', path: '/trademark/file-oa-response', purpose: 'file a trademark office-action response', effect: 'act', gate: stateBar, ...postedAs('trademark_office_action'), reservedAct: 'file' },
  { method: 'POST', path: '/demand-letter/send', purpose: 'send a demand letter on attorney letterhead', effect: 'act', gate: stateBar, ...postedAs('demand_letter'), reservedAct: 'sign' },
  { method: 'POST', path: '/contract/advise', purpose: 'legal advice on a contract', effect: 'act', gate: stateBar, ...postedAs('contract_review'), reservedAct: 'sign' },
];

export const capabilityAt = (method: string, path: string): Capability => {
  const found = CAPABILITIES.find((c) => c.method === method && c.path === path);
  if (!found) throw new Error(`no capability ${method} ${path} in the catalog`);
  return found;
};

/** The gate as the wire shows it. */
export function gateView(gate: Gate): 'none' | { requiresAccess: string } | { requiresSigner: string } {
  if (gate.kind === 'none') return 'none';
  return gate.kind === 'requiresAccess' ? { requiresAccess: gate.access } : { requiresSigner: gate.credential };
}

/** `/patent/{number}` for people and documents. */
export const openapiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
