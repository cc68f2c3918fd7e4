/**
 * Sandbox Tenants: a platform's grain. A Tenant declares flat-priced Offers and
 * routing mechanics (`maxFeeUsd`, optionally a jurisdiction allowlist); its
 * Matters mint only against a declared Offer. Declarations are journaled on the
 * tenant's own stream; the current Offers and routing are the latest of each.
 *
 * Tenant Guardrails bind mechanics only: the routing cap is handed to the Gate
 * (`Matters.grainGuardrails`), which applies it at creation and at every
 * advance. Nothing here touches consent, Client direction or withdrawal: those
 * belong to the Client alone.
 */
import type { Guardrails } from '../domain/gate.ts';
import type { MatterType } from '../domain/matter-types.ts';
import { refusal } from '../domain/refusals.ts';
import { SandboxGrains, type Grain } from './workspaces.ts';
import type { Supervisor } from './supervisor.ts';

export interface Offer {
  id: string;
  title: string;
  priceUsd: number;
  matterType?: MatterType;
  proofPredicate?: string;
}

export interface TenantRouting {
  maxFeeUsd: number;
  jurisdictions?: string[];
}

export interface TenantState {
  offers: Offer[];
  /** Null until the Tenant declares routing. */
  routing: TenantRouting | null;
  offersSeq: number | null;
  routingSeq: number | null;
}

/** What a Matter minted on this Tenant takes from the Offer it names. */
export interface MintTerms {
  offer: Offer;
  matterType?: MatterType;
  listFeeUsd: number;
}

export class Tenants extends SandboxGrains {
  constructor(supervisor: Supervisor, ttlSeconds?: number, now?: () => number, capacity?: number) {
    super('tenant', supervisor, ttlSeconds, now, capacity);
  }

  /** The Tenant's declarations, folded from its stream: the latest of each kind wins. */
  stateOf(grain: Grain): TenantState {
    const state: TenantState = { offers: [], routing: null, offersSeq: null, routingSeq: null };
    for (const e of grain.stream) {
      if (e.kind === 'tenant.offers.declared') {
        state.offers = e.data.offers as Offer[];
        state.offersSeq = e.seq;
      } else if (e.kind === 'tenant.routing.declared') {
        state.routing = e.data.routing as TenantRouting;
        state.routingSeq = e.seq;
      }
    }
    return state;
  }

  /** Replaces the declared Offers. The caller has screened percent-shaped prices. */
  declareOffers(id: string, offers: Offer[]): Promise<TenantState> {
    const seen = new Set<string>();
    for (const offer of offers) {
      if (seen.has(offer.id)) throw refusal('DUPLICATE_OFFER', { offerId: offer.id });
      seen.add(offer.id);
    }
    return this.withGrain(id, async (grain) => {
      const clean = offers.map(({ id: offerId, title, priceUsd, matterType, proofPredicate }) => ({ id: offerId, title, priceUsd, ...(matterType ? { matterType } : {}), ...(proofPredicate ? { proofPredicate } : {}) }));
      await this.declare(grain, { kind: 'tenant.offers.declared', by: 'tenant', note: `${clean.length} flat-priced Offer(s) declared`, data: { offers: clean } });
      return this.stateOf(grain);
    });
  }

  /** Replaces the routing mechanics. The caller has screened merits-bearing keys. */
  declareRouting(id: string, routing: TenantRouting): Promise<TenantState> {
    return this.withGrain(id, async (grain) => {
      const clean = { maxFeeUsd: routing.maxFeeUsd, ...(routing.jurisdictions ? { jurisdictions: routing.jurisdictions } : {}) };
      await this.declare(grain, { kind: 'tenant.routing.declared', by: 'tenant', note: `routing mechanics declared: maxFeeUsd ${clean.maxFeeUsd}`, data: { routing: clean } });
      return this.stateOf(grain);
    });
  }

  /**
   * The Gate's view of a grain's Tenant Guardrails: the routing mechanics of a
   * live Tenant, nothing for any other grain.
   */
  async guardrailsOf(grainId: string): Promise<Guardrails | undefined> {
    if (!this.owns(grainId)) return undefined;
    const routing = this.stateOf(await this.resolve(grainId)).routing;
    return routing ?? undefined;
  }

  /**
   * A Tenant mints only against an Offer it declared. The Offer fixes the
   * matter type (when it names one) and the flat price, which becomes the
   * Matter's `listFeeUsd`; a body that contradicts either is refused.
   */
  async mintTerms(id: string, body: { offer?: unknown; matterType?: unknown; listFeeUsd?: unknown }, requiredType?: MatterType): Promise<MintTerms> {
    const state = this.stateOf(await this.resolve(id));
    const declared = state.offers.map((o) => o.id);
    const fix = declared.length ? `name one of the declared Offers (${declared.join(', ')})` : `declare one first with PUT /tenants/${id}/offers`;
    if (typeof body.offer !== 'string' || body.offer === '') {
      throw refusal('OFFER_REQUIRED', { fix }, { declaredOffers: declared });
    }
    const offer = state.offers.find((o) => o.id === body.offer);
    if (!offer) throw refusal('UNKNOWN_OFFER', { offer: body.offer, tenantId: id, fix }, { declaredOffers: declared });
    const wanted = requiredType ?? (typeof body.matterType === 'string' ? (body.matterType as MatterType) : undefined);
    if (offer.matterType && wanted && wanted !== offer.matterType) {
      throw refusal('OFFER_MATTER_TYPE', { offerId: offer.id, offerType: offer.matterType, wanted }, { offer });
    }
    if (body.listFeeUsd !== undefined && body.listFeeUsd !== offer.priceUsd) {
      throw refusal('OFFER_PRICE', { offerId: offer.id, priceUsd: offer.priceUsd, listFeeUsd: body.listFeeUsd }, { offer });
    }
    return { offer, matterType: wanted ?? offer.matterType, listFeeUsd: offer.priceUsd };
  }
}
