/**
 * What the capability catalog's write doors journal, each on a stream of its
 * own in the caller's grain:
 * - a record (`capability.recorded`): a draft artifact's metadata (its
 *   sha256, never its text);
 * - an unreserved act (`capability.acted`): its synthetic receipt; an act on
 *   a named stream (one maintenance payment per window) is taken once;
 * - a reserved act (`capability.escalated`), which the service never
 *   performs: an intent naming its Gig, posted to the supply network from the
 *   journal by the outbox, with the Gig's id as the post's idempotency key,
 *   as a Matter's Gig is.
 */
import { newId } from '../domain/ids.ts';
import { refusal } from '../domain/refusals.ts';
import { VersionConflict } from '../journal/store.ts';
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

/** Who asked, as the caller said (X-Actor, X-Mandate): journaled as provenance, never as proof. */
type Provenance = { callerProvenance?: object };

export class CatalogActs {
  constructor(
    private readonly supervisor: Supervisor,
    private readonly supply: SupplyNetwork,
    private readonly outbox: Outbox,
  ) {
    outbox.consume('capability.escalated', this.poster);
  }

  /** Journals a drafted artifact's metadata; answers the seq it landed at. */
  async record(grain: string, route: string, artifact: { id: string; kind: string; title: string; sha256: string; bytes: number }, provenance: Provenance): Promise<number> {
    const [written] = await this.supervisor.openStream(grain, artifact.id, { kind: 'capability.recorded', by: 'gate', note: `${route}: ${artifact.kind} drafted (sha256 ${artifact.sha256})`, data: { route, artifactId: artifact.id, kind: artifact.kind, title: artifact.title, sha256: artifact.sha256, bytes: artifact.bytes, ...provenance } });
    return written.seq;
  }

  /** Is the act of this named stream already taken here? */
  async taken(stream: string): Promise<boolean> {
    return (await this.supervisor.journal.streamVersion(stream)) > 0;
  }

  /** Journals an unreserved act completed on the simulated registry, with its receipt; answers the act's id. */
  async complete(grain: string, route: string, act: { priceUsd?: number; receipt: { id: string } & Record<string, unknown>; stream?: string }, provenance: Provenance): Promise<string> {
    const actId = newId('rc');
    try {
      await this.supervisor.openStream(grain, act.stream ?? actId, { kind: 'capability.acted', by: 'gate', note: `${route}: completed on the simulated registry, receipt ${act.receipt.id}`, data: { route, actId, priceUsd: act.priceUsd, receipt: { ...act.receipt, synthetic: true }, ...provenance } }, actId);
    } catch (error) {
      // Two identical acts raced on one named stream: the later one lost.
      if (error instanceof VersionConflict) throw refusal('ACT_ALREADY_TAKEN', { route });
      throw error;
    }
    return actId;
  }

  /** Journals a reserved act's Gig, then posts it; answers the ids and, while the post waits for a retry, why. */
  async escalate(grain: string, act: ReservedActRequest): Promise<{ actId: string; gigId: string; pending?: string }> {
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
