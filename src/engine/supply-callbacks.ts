/**
 * The supply network's signed callbacks are applied at most once each. A
 * callback names itself with its Standard Webhooks `webhook-id`; the first
 * one accepted opens that id's record stream, at version 0, in the very
 * transaction that applies it, so a crash can never leave one without the
 * other, and a second acceptance of the same id (a retry, or a race in
 * another mailbox or process) loses on the expected version.
 *
 * A retry (the same id, the same Matter, the same body bytes) is answered as
 * the first time: the Matter as that acceptance left it. The same id on
 * another body or Matter is refused: an id names one message.
 */
import { sha256Hex } from '../domain/hash.ts';
import { refusal } from '../domain/refusals.ts';
import type { JournalStore, StreamWrite } from '../journal/store.ts';
import type { Supervisor } from './supervisor.ts';

/** A signed callback as it arrived: its id, and the digest of the Matter it names and its exact body bytes. */
export interface Delivery {
  webhookId: string;
  digest: string;
}

export const deliveryOf = (webhookId: string, matterId: string, rawBody: string): Delivery => ({ webhookId, digest: sha256Hex(`${matterId}\n${rawBody}`) });

/** The record stream of a callback id (hashed: the id is the network's text, of any length). */
export const callbackStream = (webhookId: string) => `supply-callback:${sha256Hex(webhookId)}`;

/** The write that records an accepted callback, leaving the Matter at `matterVersion`. */
export function callbackRecord(supervisor: Supervisor, delivery: Delivery, matterId: string, matterVersion: number): StreamWrite {
  return supervisor.factWrite(
    callbackStream(delivery.webhookId),
    0,
    { kind: 'supply.callback.accepted', by: 'supply-network', note: `the supply network's signed callback ${delivery.webhookId} was accepted`, data: { webhookId: delivery.webhookId, digest: delivery.digest, matterId, matterVersion } },
    matterId,
  );
}

/**
 * The Matter version the first acceptance of this callback left, or null
 * when its id was never accepted; refuses 422 when the id was accepted for
 * another Matter or other body bytes.
 */
export async function acceptedBefore(journal: JournalStore, delivery: Delivery, matterId: string): Promise<number | null> {
  const [record] = await journal.readStream(callbackStream(delivery.webhookId));
  if (!record) return null;
  const first = record.data as { digest: string; matterId: string; matterVersion: number };
  if (first.digest !== delivery.digest || first.matterId !== matterId) {
    throw refusal('WEBHOOK_ID_REUSED', { webhookId: delivery.webhookId, other: first.matterId === matterId ? 'body' : 'Matter' }, { webhookId: delivery.webhookId });
  }
  return first.matterVersion;
}
