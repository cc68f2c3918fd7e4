/**
 * The supply network port: where reserved acts are posted as Gigs for an
 * independent licensed Signer. A Gig's id is ours, journaled before the post
 * (the outbox), and is the post's idempotency key: posting the same Gig
 * twice makes one Gig. The simulated adapter answers the fixture Clients at
 * once (declined with a memo, or attested by the eligible fixture Signer,
 * with a synthetic filed receipt for `file`), the same answer for the same
 * Gig every time.
 */
import type { Attestation, ReservedAct } from '../../machines/matter.ts';
import { FIXTURE, type ClientFixture } from './fixtures.ts';
import type { Rail } from './matter-types.ts';
import { sha256Hex } from './hash.ts';

export interface GigPost {
  /** Ours, journaled before the post: the network's idempotency key. */
  gigId: string;
  /** The Matter (or the capability act) the Gig serves. */
  matterId: string;
  reservedAct: ReservedAct;
  rail: Rail;
  matterType: string;
  clientFixture: ClientFixture;
}

export type ImmediateAnswer =
  | { outcome: 'attested'; attestation: Attestation; receipt?: string }
  | { outcome: 'declined'; memo: string; signedBy: string };

export interface PostedGig {
  answer?: ImmediateAnswer;
}

export class SupplyRefused extends Error {}

export interface SupplyNetwork {
  /** Posts a Gig (again, harmlessly: the id is the idempotency key); throws {@link SupplyRefused} when the network refuses it. */
  post(gig: GigPost): Promise<PostedGig>;
}


/** The synthetic filed receipt an attested `file` act carries in the preview. */
export function syntheticReceipt(rail: Rail, gigId: string): string {
  return `${rail === 'patent' ? 'uspto' : 'state'}-receipt:${sha256Hex(gigId).slice(0, 16)}`;
}

export function simulatedSupplyNetwork(): SupplyNetwork {
  return {
    async post(gig) {
      const { gigId } = gig;
      if (gig.clientFixture === 'declining') {
        return { answer: { outcome: 'declined', signedBy: FIXTURE.eligibleSigner, memo: `The Signer declines the reserved act ${gig.reservedAct}: the Client's instructions do not support it as drafted (fixture).` } };
      }
      if (gig.clientFixture === 'fulfilling') {
        const attestation: Attestation = {
          signedBy: FIXTURE.eligibleSigner,
          credentialRef: gig.rail === 'patent' ? 'uspto-reg:70001' : 'state-bar:CA-300001',
          artifactHash: `sha256:${sha256Hex(`${gig.matterId}/${gig.reservedAct}/${gigId}`)}`,
        };
        return { answer: { outcome: 'attested', attestation, ...(gig.reservedAct === 'file' ? { receipt: syntheticReceipt(gig.rail, gigId) } : {}) } };
      }
      return {};
    },
  };
}

/** A network that refuses every post: for tests of the 502 path and for outages. */
export const refusingSupplyNetwork: SupplyNetwork = {
  async post() {
    throw new SupplyRefused('the supply network refused the Gig post');
  },
};
