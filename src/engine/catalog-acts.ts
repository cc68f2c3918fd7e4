/**
 * The capability catalog's reserved acts (file a utility application, record
 * an assignment, send a demand letter, advise): the service never performs
 * one. Each is journaled as an intent naming its Gig (`capability.escalated`,
 * on the act's own stream), then posted to the supply network from the
 * journal by the outbox, with the Gig's id as the post's idempotency key, as
 * a Matter's Gig is.
 */
import { newId } from '../domain/ids.ts';
import type { ReservedAct } from '../../machines/matter.ts';
import { SupplyRefused, type SupplyNetwork } from '../domain/supply-network.ts';
import type { Attempt, Consumer, Outbox } from './outbox.ts';
import type { Supervisor } from './supervisor.ts';

export interface ReservedActRequest {
  /** `METHOD /path` of the catalog route. */
  route: string;
  credential: string;
  reservedAct: ReservedAct;
  priceUsd?: number;
  matterType: string;
  preferredSigner?: string;
  callerProvenance?: object;
}

export class ReservedActs {
  constructor(
    private readonly supervisor: Supervisor,
    private readonly supply: SupplyNetwork,
    private readonly outbox: Outbox,
  ) {
    outbox.consume('capability.escalated', this.poster);
  }

  /** Journals the act's Gig, then posts it; answers the ids and, while the post waits for a retry, why. */
  async post(grain: string, act: ReservedActRequest): Promise<{ actId: string; gigId: string; pending?: string }> {
    const actId = newId('rc');
    const gigId = newId('gig');
    const [intent] = await this.supervisor.openStream(
      grain,
      actId,
      {
        kind: 'capability.escalated',
        by: 'gate',
        note: `${act.route}: reserved act posted as Gig ${gigId} for a ${act.credential} Signer`,
        data: { route: act.route, actId, gigId, credential: act.credential, reservedAct: act.reservedAct, priceUsd: act.priceUsd, matterType: act.matterType, ...(act.preferredSigner ? { preferredSigner: act.preferredSigner } : {}), ...(act.callerProvenance ? { callerProvenance: act.callerProvenance } : {}) },
      },
      actId,
    );
    const attempt: Attempt = await this.outbox.deliver(intent);
    return { actId, gigId, ...(attempt.delivered ? {} : { pending: `the supply network has not taken the Gig yet (${attempt.reason}); it is journaled and its post is retried` }) };
  }

  private readonly poster: Consumer = {
    idOf: (intent) => intent.data.gigId as string,
    deliver: async (intent) => {
      const d = intent.data as { gigId: string; actId: string; reservedAct: ReservedAct; credential: string; matterType: string };
      try {
        await this.supply.post({ gigId: d.gigId, matterId: d.actId, reservedAct: d.reservedAct, rail: d.credential === 'uspto-registration' ? 'patent' : 'state', matterType: d.matterType, clientFixture: null });
      } catch (error) {
        if (error instanceof SupplyRefused) return { delivered: false, reason: `the supply network refused the Gig: ${error.message}` };
        throw error;
      }
      return { delivered: true };
    },
  };
}
