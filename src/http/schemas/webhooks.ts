/** What the webhook doors take (decisions.md, "Webhooks"). */
import { Type } from '@sinclair/typebox';
import { WEBHOOK_SUBSCRIPTIONS } from '../../domain/webhook-events.ts';
import { Arr, Enum, Id, Opt, Strict, Text } from './common.ts';

export const WebhookBody = Strict({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https:// on a public address (inside a sandbox grain, http://127.0.0.1:<port>/… works too)', examples: ['https://agent.example.com/legalwork/webhooks'] }),
  events: Arr(Enum(WEBHOOK_SUBSCRIPTIONS), { minItems: 1, maxItems: 32, description: 'the event types to send: outcome.filed, matter.*, reminder.<rung>, reminder.* or *' }),
  description: Opt(Text(500)),
});

// Path parameters are not strict: a grain prefix adds its own.
export const WebhookParams = Type.Object({ id: Id });
export const DeliveryParams = Type.Object({ id: Id, deliveryId: Id });

export const DeliveriesQuery = Strict({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  before: Opt(Type.Integer({ minimum: 1, description: 'the `position` of the oldest attempt already seen (`nextBefore`)' })),
});
