/** The ratified matter types (decisions.md), each on its rail. Anything else is 400. */
export const MATTER_TYPES = [
  'patent_provisional',
  'patent_utility',
  'patent_maintenance',
  'trademark_office_action',
  'demand_letter',
  'contract_review',
  'entity_formation',
] as const;
export type MatterType = (typeof MATTER_TYPES)[number];

/** The agent classes a Matter is opened for: the machine's input, defined beside it. */
export { CONSUMER_PATTERNS, type ConsumerPattern } from '../../machines/matter.ts';

/** How a Signer answers a Matter's Gig. */
export const GIG_OUTCOMES = ['attested', 'send_back', 'declined'] as const;
export type GigOutcome = (typeof GIG_OUTCOMES)[number];

export type Rail = 'patent' | 'state';
export const RAILS: readonly Rail[] = ['patent', 'state'];

export const RAIL_OF: Record<MatterType, Rail> = {
  patent_provisional: 'patent',
  patent_utility: 'patent',
  patent_maintenance: 'patent',
  trademark_office_action: 'state',
  demand_letter: 'state',
  contract_review: 'state',
  entity_formation: 'state',
};

/** The Asset kind minted when the creation body names none. */
/** What an Asset can be. */
export const ASSET_KINDS = ['patent_application', 'patent', 'trademark_application', 'claim', 'contract', 'entity'] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

export const DEFAULT_ASSET_KIND: Record<MatterType, AssetKind> = {
  patent_provisional: 'patent_application',
  patent_utility: 'patent_application',
  patent_maintenance: 'patent',
  trademark_office_action: 'trademark_application',
  demand_letter: 'claim',
  contract_review: 'contract',
  entity_formation: 'entity',
};

/** What `POST /orders` (top level or a Tenant's) mints: a patent-rail provisional. */
export const ORDER_MATTER_TYPE: MatterType = 'patent_provisional';

export const isMatterType = (v: unknown): v is MatterType => typeof v === 'string' && (MATTER_TYPES as readonly string[]).includes(v);
