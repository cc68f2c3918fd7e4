/**
 * The supply network's callback at the top level (`POST /matters/{id}/gig-result`)
 * is signed, per Standard Webhooks, with the network's secret
 * (`LEGALWORK_SUPPLY_SECRET`, `whsec_` + base64): `webhook-id`,
 * `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, verified with the `standardwebhooks` package over
 * the exact body text, before the body is validated or any Matter is looked
 * up, so an unsigned request learns nothing of which ids exist. An API key
 * never stands in for the signature. Sandbox grains keep their unsigned door.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { refusal } from '../domain/refusals.ts';
import { deliveryOf, type Delivery } from '../engine/supply-callbacks.ts';
import { param } from './params.ts';
import { supplyCallbacks } from '../engine/engine-metrics.ts';
import { metricsOn } from '../lib/telemetry.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed callback this request is, once its signature verified. */
    delivery?: Delivery;
  }
  interface FastifyContextConfig {
    /** The door is the supply network's signed callback: its signature is checked before anything else reads the request. */
    signedCallback?: boolean;
  }
}

/** The `config.keyless` reason of the top-level callback door. */
export const SIGNED_NOT_KEYED = "the supply network's callback is signed with the network's secret (Standard Webhooks); an API key never stands in for the signature";

/** What the contract says of the top-level door. */
export const SIGNED_CALLBACK =
  "The supply network's callback: a Signer's answer to the pending Gig. At the top level it must be signed per Standard Webhooks with the supply network's secret (headers webhook-id, webhook-timestamp, webhook-signature over the exact body bytes); an API key never stands in for the signature, and a Signer counts only when the Signer registry verifies them eligible, fresh at call time. Inside a sandbox grain the same door is keyless and unsigned.";

/** How far a signature's timestamp may stand from now, either way (Standard Webhooks' tolerance). */
export const TOLERANCE_SECONDS = 5 * 60;

/**
 * The signature check of every door whose config says `signedCallback`: the
 * app's first preValidation hook (installed ahead of the Idempotency-Key's,
 * which needs to know the caller is the supply network before it replays
 * anything to it), the first moment the body's exact text is there.
 */
export function installSupplySignature(app: FastifyInstance, secret: string | undefined): void {
  const verify = verifySupplySignature(secret);
  // A signed callback carries a body, so no read is one: refused at registration, and a read passes without building the route's options (Fastify makes them anew on each read).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.signedCallback && methods.some((m) => m === 'GET' || m === 'HEAD')) throw new Error(`config.signedCallback is for a door that takes a body: ${methods.join(',')} ${route.url}`);
  });
  if (metricsOn()) countVerdicts(app);
  // A callback hook: every request passes it, and one to any other door without a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !request.routeOptions.config.signedCallback) return done();
    verify(request).then(() => done(), done);
  });
}

/**
 * 403 BLOCKED when no supply network is connected, 401 for a missing,
 * malformed, stale or wrong signature; a verified callback is left on
 * `request.delivery`.
 */
function verifySupplySignature(secret: string | undefined) {
  const webhook = secret ? new Webhook(secret) : null;
  return async (request: FastifyRequest) => {
    if (!webhook) {
      throw refusal('SUPPLY_NETWORK_NOT_CONNECTED', {});
    }
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(' ') : value;
    };
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const signature = header('webhook-signature');
    const missing = Object.entries({ 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }).filter(([, v]) => !v).map(([k]) => k);
    if (missing.length) throw refusal('SIGNATURE_INVALID', { why: 'missing', missing });
    if (!/^\d{1,12}$/.test(timestamp!)) throw refusal('SIGNATURE_INVALID', { why: 'timestamp', timestamp: timestamp! });
    // Checked here, ahead of the library (which checks it too), to word the refusal.
    const skew = Number(timestamp) - Math.floor(Date.now() / 1000);
    if (Math.abs(skew) > TOLERANCE_SECONDS) {
      throw refusal('SIGNATURE_EXPIRED', { skew, tolerance: TOLERANCE_SECONDS });
    }
    try {
      webhook.verify(request.rawBody ?? '', { 'webhook-id': id!, 'webhook-timestamp': timestamp!, 'webhook-signature': signature! }, { jsonParse: false });
    } catch {
      throw refusal('SIGNATURE_INVALID', { why: 'mismatch' });
    }
    request.delivery = deliveryOf(id!, param(request, 'id'), request.rawBody ?? '');
  };
}

/** Each signed callback's verdict, as its answer says it (`legalwork_supply_callbacks_total`). */
function countVerdicts(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.routeOptions.config.signedCallback) supplyCallbacks.inc({ verdict: verdictOf(reply.statusCode, reply.getHeader('idempotent-replayed') === 'true') });
    done();
  });
}

function verdictOf(status: number, replayed: boolean): string {
  if (status < 300) return replayed ? 'replayed' : 'accepted';
  if (status === 401) return 'signature_rejected';
  if (status === 403) return 'not_connected';
  return status < 500 ? 'refused' : 'failed';
}
