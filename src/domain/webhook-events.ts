/**
 * Which webhook events a journal fact is (decisions.md, "Webhooks"): each is
 * derived from a committed fact, never from an in-memory callback, so a
 * restart derives the same events again, with the same ids.
 *
 * - `matter.escalated`: a Gig posted for a reserved act (`gig.posted`);
 * - `matter.attested`: a Signer attested it (a `stage` fact carrying an Attestation);
 * - `outcome.filed`: an attested act that came back with the government
 *   receipt (the same `stage` fact, with a receipt): the signed artifact's
 *   hash, the Attestation and the receipt, as the specification promises;
 * - `matter.sent_back`, `matter.declined`, `matter.terminal`, `matter.fulfilled`;
 * - `reminder.<rung>`: a Deadline Ladder rung fired.
 */
import { RUNGS } from '../../machines/deadline-ladder.ts';
import { sha256Hex } from './hash.ts';
import type { JournalEvent } from '../journal/store.ts';

export const WEBHOOK_EVENT_TYPES = [
  'outcome.filed',
  'matter.escalated',
  'matter.attested',
  'matter.sent_back',
  'matter.declined',
  'matter.terminal',
  'matter.fulfilled',
  ...RUNGS.map((rung) => `reminder.${rung}` as const),
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint may subscribe to: the types, `reminder.*`, or `*` for all. */
export const WEBHOOK_SUBSCRIPTIONS = ['*', 'reminder.*', ...WEBHOOK_EVENT_TYPES] as const;
export type WebhookSubscription = (typeof WEBHOOK_SUBSCRIPTIONS)[number];

const MATTER_FACTS: Record<string, WebhookEventType> = {
  'gig.posted': 'matter.escalated',
  'gig.sent_back': 'matter.sent_back',
  'gig.declined': 'matter.declined',
  terminal: 'matter.terminal',
  lifecycle: 'matter.fulfilled',
};

/** The webhook events a fact is, in the order they are delivered (an attestation before the filing it completes). */
export function webhookTypesOf(fact: Pick<JournalEvent, 'kind' | 'data'>): WebhookEventType[] {
  if (fact.kind.startsWith('reminder.')) return [fact.kind as WebhookEventType];
  const mapped = MATTER_FACTS[fact.kind];
  if (mapped) return [mapped];
  if (fact.kind === 'stage' && fact.data.attestation) return fact.data.receipt ? ['matter.attested', 'outcome.filed'] : ['matter.attested'];
  return [];
}

/** Whether an endpoint subscribed to `subscriptions` takes `type`. */
export const subscribes = (subscriptions: readonly string[], type: string): boolean =>
  subscriptions.includes('*') || subscriptions.includes(type) || (type.startsWith('reminder.') && subscriptions.includes('reminder.*'));

/** An event's id: the same for every attempt and every redelivery, to every endpoint (the fact and the type name it). */
export const webhookEventId = (fact: Pick<JournalEvent, 'grain' | 'seq'>, type: string): string => `evt_${sha256Hex(`${fact.grain}\n${fact.seq}\n${type}`).slice(0, 32)}`;
