/** What the webhook doors take (decisions.md, "Webhooks"). */
import { Type } from '@sinclair/typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SUBSCRIPTIONS, type WebhookEventType } from '../domain/webhook-events.ts';
import { Arr, Cursor, Enum, Id, Opt, PageSize, Strict, Text } from './common.ts';

export const WebhookBody = Strict({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https:// on a public address (inside a sandbox grain, http://127.0.0.1:<port>/… works too)', examples: ['https://93.184.215.14/legalwork/webhooks'] }),
  events: Arr(Enum(WEBHOOK_SUBSCRIPTIONS), { minItems: 1, maxItems: 32, description: 'the event types to send: outcome.filed, matter.*, reminder.<rung>, reminder.* or *', examples: [['outcome.filed', 'reminder.*']] }),
  description: Opt(Text(500)),
}, { examples: [{ url: 'https://93.184.215.14/legalwork/webhooks', events: ['outcome.filed', 'reminder.*'], description: 'filings and deadline reminders' }] });

// Path parameters are not strict: a grain prefix adds its own.
export const WebhookParams = Type.Object({ id: Id });
export const DeliveryParams = Type.Object({ id: Id, deliveryId: Id });

export const DeliveriesQuery = Strict({
  limit: PageSize(500, 50),
  before: Opt(Cursor('the `position` of the oldest attempt already seen (`nextBefore`)', 1)),
});

const component = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What each event's `data` is. */
function dataOf(type: WebhookEventType) {
  if (type === 'outcome.filed') {
    return {
      type: 'object',
      additionalProperties: false,
      required: ['matterId', 'matterType', 'act', 'gigId', 'artifactHash', 'attestation', 'receipt'],
      properties: {
        matterId: { type: 'string' },
        matterType: component('MatterType'),
        act: component('ReservedAct'),
        gigId: { type: 'string' },
        artifactHash: { type: 'string', description: 'the signed artifact\'s hash, as the Attestation names it' },
        attestation: component('Attestation'),
        receipt: { type: 'string', description: 'the government receipt of the filing' },
      },
    };
  }
  if (type.startsWith('reminder.')) {
    // The rung as the ladder journaled it (the `data` of its `reminder.*` fact), and the Asset it speaks of.
    return { allOf: [component('ReminderData')], required: ['assetId'], properties: { assetId: { type: 'string', description: 'the Asset whose ladder crossed the rung' } }, unevaluatedProperties: false };
  }
  return { type: 'object', additionalProperties: false, required: ['matter'], properties: { matter: { ...component('Matter'), description: 'the Matter as the fact left it' } } };
}

const MEANING: Record<WebhookEventType, string> = {
  'outcome.filed': 'A reserved act was attested and came back with the government receipt: the signed artifact\'s hash, the Attestation and the receipt.',
  'matter.escalated': 'A reserved act was posted as a Gig to the supply network; the Matter waits on its Signer.',
  'matter.attested': 'A Signer attested the reserved act.',
  'matter.sent_back': 'The Signer sent the work back to prepare, with its defects.',
  'matter.declined': 'The Signer declined; the Matter waits on the Client\'s direction.',
  'matter.terminal': 'The Matter ended: withdrawn, lapsed or referred out.',
  'matter.fulfilled': 'The Matter was fulfilled.',
  'reminder.notice': 'A Deadline Ladder\'s notice rung fired.',
  'reminder.ack_missed': 'A Deadline Ladder\'s ack_missed rung fired: nobody acknowledged in time.',
  'reminder.ack_due': 'A Deadline Ladder\'s ack_due rung fired: a named human must acknowledge.',
  'reminder.terminal': 'A Deadline Ladder reached its terminal rung.',
};

const SIGNED = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'the event id (the payload\'s `id`): the same on every attempt and redelivery, so a receiver drops a repeat' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'seconds since the epoch when this attempt was signed' },
  { name: 'webhook-signature', in: 'header', required: true, schema: { type: 'string' }, description: 'v1,<base64 HMAC-SHA256> over "<id>.<timestamp>.<body>" with the endpoint\'s secret (Standard Webhooks; verify with the standardwebhooks package)' },
];

/** The OpenAPI 3.1 `webhooks` section: what an endpoint is POSTed, event by event. */
export const WEBHOOK_EVENTS_DOCUMENT: Record<string, OpenAPIV3_1.PathItemObject> = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        summary: `The ${type} event`,
        description: `${MEANING[type]} Sent to every endpoint subscribed to it, signed per Standard Webhooks, at least once and in journal order; retried on a non-2xx or no answer within 10 s after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h.`,
        tags: ['webhooks'],
        // The receiver checks the signature (the headers below), not a bearer key.
        security: [],
        parameters: SIGNED,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['id', 'type', 'timestamp', 'data'],
                properties: { id: { type: 'string' }, type: { const: type }, timestamp: { type: 'string', description: 'when the fact was journaled' }, data: dataOf(type) },
              },
            },
          },
        },
        responses: { '200': { description: 'any 2xx: delivered. Anything else, a redirect or no answer within 10 s is a failed attempt, retried' } },
      },
    },
  ]),
) as unknown as Record<string, OpenAPIV3_1.PathItemObject>; // JSON literals widen; the OpenAPI validator test holds the shape
