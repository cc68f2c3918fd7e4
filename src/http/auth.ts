/**
 * Authentication and the hard spend ceiling, for every route of the app.
 *
 * - A presented key (`Authorization: Bearer <key>`) is always checked: an
 *   unknown or malformed one is 401, on any door, and so is one revoked, or
 *   rolled and past its expiry (`keyState` in `engine/keys.ts` decides, once).
 *   The rest of the request runs under the key's guard: each of its writes
 *   checks the key again in its own transaction, so a key revoked while the
 *   request runs has nothing written after its revocation.
 * - Reads are keyless, and so is everything inside a sandbox grain
 *   (`/workspaces/{id}`, `/tenants/{id}`, `/firms/{id}`). Every other write on
 *   the top-level surface needs a key: 401 naming `POST /keys` without one.
 *   This is default-deny: a top-level write needs a key unless its route opts
 *   out with `config.keyless` (a reason), as sandbox provisioning, the key
 *   door and the doors blocked to every caller do. The doors about the
 *   presenting key itself (`/keys/self…`) need it on every method.
 * - `X-Actor` and `X-Mandate` are carried as provenance and never trusted as
 *   proof: they never raise the caller's tier.
 * - A route whose `config.paidAct` names a price reserves it against the key's
 *   ceiling before the handler runs (403 BLOCKED naming the ceiling when it
 *   would pass it) and releases it when the act is refused (4xx).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessTier } from '../domain/access.ts';
import type { PaidActPrice } from '../domain/paid-acts.ts';
import { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import type { KeyGuard, KeyRecord, Keys } from '../engine/keys.ts';
import { guardWrites } from '../engine/write-guard.ts';
import type { Services } from './services.ts';
import { decoratePresentedKey, presentedKeyOf } from './presented-key.ts';

export interface Provenance {
  actor?: string;
  mandate?: string;
  /** Always false: no mandate verifier is live, so provenance is never proof. */
  verified: false;
}

export interface Access {
  tier: Extract<AccessTier, 'anonymous' | 'identified'>;
  key?: KeyRecord;
  provenance?: Provenance;
}

declare module 'fastify' {
  interface FastifyRequest {
    access: Access;
    /** The reservation a paid act holds while it runs. */
    reservation?: { key: KeyRecord; ref: string };
    /** The guard the request's writes carry, for the key it presented (closed once it is answered). */
    keyGuard?: KeyGuard;
  }
  interface FastifyContextConfig {
    /** Why this top-level write needs no key (sandbox provisioning, a door blocked to every caller). */
    keyless?: string;
    /** The posted price of the act this request would take, when it is a paid act. */
    paidAct?: (request: FastifyRequest) => PaidActPrice | null;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Route patterns inside a sandbox grain: keyless by the spec. */
const SANDBOX_GRAIN = /^\/(workspaces|tenants|firms)\/:[^/]+/;

const PROVENANCE_LIMITS = { 'x-actor': 200, 'x-mandate': 4000 } as const;

/** The doors about the presenting key itself: they need it, reads included. */
const KEY_ITSELF = /^\/keys\/self(\/|$)/;

/** Does this route, as registered, need a key? A door about the key itself does; else not a read, not a route that says why it needs none (`config.keyless`), not a sandbox grain's. */
export function needsKey(method: string, url: string, keyless?: string): boolean {
  return KEY_ITSELF.test(url) || (!READS.has(method) && keyless === undefined && !SANDBOX_GRAIN.test(url));
}

/**
 * The key a request presents, as `Keys.honour` judges the one lookup of it
 * (`presented-key.ts`, which the rate limit may have made already): its
 * record when honoured, the 401 refusal when the header is malformed or the
 * key unknown, revoked or expired, null when it presents none.
 */
async function presentedKey(request: FastifyRequest, keys: Keys): Promise<KeyRecord | Refusal | null> {
  const presented = await presentedKeyOf(request, keys);
  if (presented.kind === 'none') return null;
  if (presented.kind === 'malformed') return refusal('KEY_MALFORMED', {});
  try {
    return await keys.honour(presented.found);
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

/** A 401 carries the Bearer challenge beside its refusal. */
function unauthorized(reply: FastifyReply, refused: Refusal): Refusal {
  reply.header('www-authenticate', 'Bearer realm="legalwork", error="invalid_token"');
  return refused;
}

function provenanceOf(request: FastifyRequest): Provenance | undefined {
  const out: Omit<Provenance, 'verified'> = {};
  for (const name of ['x-actor', 'x-mandate'] as const) {
    const raw = request.headers[name];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (!value.trim() || value.length > PROVENANCE_LIMITS[name]) {
      throw refusal('INVALID_PROVENANCE', { header: name, limit: PROVENANCE_LIMITS[name] });
    }
    out[name === 'x-actor' ? 'actor' : 'mandate'] = value.trim();
  }
  // actor, mandate, verified: the shape and key order the capability routes journal as `callerProvenance`.
  return out.actor !== undefined || out.mandate !== undefined ? { ...out, verified: false } : undefined;
}

export function installAuth(app: FastifyInstance, services: Services) {
  // Fastify decorates with a placeholder; the onRequest hook below sets `access` before anything reads it.
  app.decorateRequest('access', null as unknown as Access);
  decoratePresentedKey(app);

  // A callback hook: the rest of a request presenting a key runs in its guard's context (`guardWrites`).
  app.addHook('onRequest', (request, reply, done) => {
    let provenance: Provenance | undefined;
    try {
      provenance = provenanceOf(request);
    } catch (error) {
      return done(error as Error);
    }
    request.access = { tier: 'anonymous', ...(provenance ? { provenance } : {}) };
    presentedKey(request, services.keys).then((key) => {
      if (key instanceof Refusal) return done(unauthorized(reply, key));
      if (key) {
        request.access.tier = 'identified';
        request.access.key = key;
        services.keys.noteUse(key);
        request.keyGuard = services.keys.guard(key);
        return guardWrites(request.keyGuard, () => done());
      }
      const route = request.routeOptions;
      if (route.url !== undefined && needsKey(request.method, route.url, route.config.keyless)) {
        return done(unauthorized(reply, refusal('KEY_REQUIRED', { method: request.method, url: route.url, mandate: provenance?.mandate !== undefined })));
      }
      done();
    }, done);
  });

  // After validation, so only a well-formed paid act reserves against the ceiling.
  // Callback hooks, and the route's options (built anew on each read) read only for a key with a ceiling: most requests pass with no promise and no allocation.
  app.addHook('preHandler', (request, _reply, done) => {
    const key = request.access.key;
    if (!key || key.owner.spendCeilingUsd === null) return done();
    const route = request.routeOptions;
    const paid = route.config.paidAct;
    const act = paid && !SANDBOX_GRAIN.test(route.url ?? '') ? paid(request) : null;
    if (!act) return done();
    services.keys.reserve(key, request.id, act.priceUsd, act.act).then(() => {
      request.reservation = { key, ref: request.id };
      done();
    }, done);
  });

  // Before the reply leaves, so the next call sees the ceiling as it stands.
  app.addHook('onSend', (request, reply, payload, done) => {
    const held = request.reservation;
    if (!held) return done(null, payload);
    request.reservation = undefined;
    // A 4xx wrote nothing: release. A 5xx may have written part of the act
    // (an order whose Gig post failed): keep it reserved, the ceiling is hard.
    if (reply.statusCode >= 400 && reply.statusCode < 500) services.keys.release(held.key, held.ref, `refused ${reply.statusCode}`).then(() => done(null, payload), done);
    else {
      services.keys.settle(held.key, held.ref);
      done(null, payload);
    }
  });

  // Answered: what the request left running (a retry's timer, a delivery) writes on its own account, not the key's.
  app.addHook('onResponse', (request, _reply, done) => {
    request.keyGuard?.close();
    done();
  });
}
