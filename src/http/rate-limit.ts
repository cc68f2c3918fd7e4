/**
 * Per-caller limits at the edge: a request rate (`@fastify/rate-limit`) and a
 * cap on the event streams one caller holds open (`sse.ts` keeps the count).
 *
 * A request's **caller** is, first match:
 * - inside a sandbox grain (`/workspaces/{id}`, `/tenants/{id}`, `/firms/{id}`):
 *   the grain, whoever sends it;
 * - with `Authorization: Bearer <key>` naming a key issued here: that key (by
 *   its id; the key itself is never logged, echoed or stored as a counter name);
 * - otherwise: the client address as the socket reports it (`request.ip`, no
 *   proxy header trusted; IPv6 by its /64), which is also what a malformed or
 *   unknown key counts against, so spraying made-up keys buys nothing.
 *
 * **The rate.** Each caller may send `perSecond` requests per fixed 1-second
 * window; past it the request is answered 429 typed BLOCKED (`RATE_LIMITED`)
 * with `Retry-After`, before anything else runs: no body is read, no key is
 * charged, nothing is written. Every answer the limit counted carries the IETF
 * RateLimit fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "per-caller";q=<perSecond>;w=1` and
 * `RateLimit: "per-caller";r=<left>;t=<seconds to the next window>`.
 * Liveness (`/healthz`) is not limited (`config.rateLimitExempt`): a probe
 * that answered 429 would read as a dead service.
 *
 * **Where it is counted.** In this process's memory by default, so each
 * process of several counts on its own (a caller may send `perSecond` to each).
 * With `redisUrl` the counters are the plugin's Redis store, shared by every
 * process pointed at the same Redis and prefix. A Redis that does not answer
 * never refuses or holds a request: the count falls back to this process's
 * memory at once (fail-open to per-process limits, the same as running without
 * Redis) and goes back to Redis when it answers again; both moves are logged.
 */
import rateLimit from '@fastify/rate-limit';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { refusal } from '../domain/refusals.ts';
import type { KeyRecord } from '../engine/keys.ts';
import { presentedKeyOf } from './presented-key.ts';
import type { Services } from './services.ts';
import { countRateLimited } from './edge-metrics.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Why this door is not rate limited (liveness probes). */
    rateLimitExempt?: string;
  }
}

export interface RateLimitOptions {
  /** Requests one caller may send per second. */
  perSecond: number;
  /** A Redis URL (`redis://host:port`): counters shared with every process on it; unset, this process's memory. */
  redisUrl?: string;
  /** The prefix of the counters' names in Redis (default `legalwork:ratelimit:`). */
  redisPrefix?: string;
}

/** 100 requests per second per caller: see README "Limits" for why. */
export const DEFAULT_RATE_LIMIT = 100;
/** 100 open event streams per caller per process. */
export const DEFAULT_MAX_STREAMS = 100;
export const DEFAULT_REDIS_PREFIX = 'legalwork:ratelimit:';
/** The `config.rateLimitExempt` reason of the liveness probe. */
export const LIVENESS_EXEMPT = 'a liveness probe: answering it 429 would report a live service as dead';

const WINDOW_MS = 1000;
const POLICY = '"per-caller"';
/** Route patterns inside a sandbox grain, and the parameter naming the grain. */
const SANDBOX_GRAIN = /^\/(?:workspaces|tenants|firms)\/:([A-Za-z]+)(?:\/|$)/;
/** How long a Redis that failed is left alone before it is asked again. */
const REDIS_RETRY_MS = 1000;

export interface Caller {
  /** The counter's name: `grain:<id>`, `key:<key id>` or `ip:<address>`. */
  id: string;
  kind: 'sandbox grain' | 'api key' | 'address';
  /** As a refusal names it. */
  said: string;
}

/** The sandbox grain a request to the route `url` is inside, as its caller. */
function grainCaller(request: FastifyRequest, url: string | undefined): Caller | undefined {
  const param = url === undefined ? undefined : SANDBOX_GRAIN.exec(url)?.[1];
  const grain = param ? (request.params as Record<string, string | undefined>)[param] : undefined;
  return grain ? { id: `grain:${grain}`, kind: 'sandbox grain', said: `sandbox grain ${grain}` } : undefined;
}

/**
 * Outside a sandbox grain: the key, when one honoured here was presented,
 * counted by its owner (a key and the successor it was rolled into share one
 * allowance: rolling buys none); else the address. A key never issued, or
 * revoked, or past its expiry counts against the address it comes from, so
 * a leaked key once revoked cannot spend its owner's allowance.
 */
function keyOrAddress(request: FastifyRequest, key: KeyRecord | undefined): Caller {
  if (key) return { id: `key:${key.owner.id}`, kind: 'api key', said: `API key ${key.id}` };
  const ip = normalizeIP(request.ip);
  return { id: `ip:${ip}`, kind: 'address', said: `address ${ip}` };
}

/** The caller of a request whose key auth has resolved (a route handler's). */
export const callerOf = (request: FastifyRequest): Caller => grainCaller(request, request.routeOptions.url) ?? keyOrAddress(request, request.access?.key);

/**
 * The key a request presents, when this process holds it honoured: from
 * memory (or its streams, on a miss), never a read of the journal per
 * request, so a request refused here costs what it did before keys could be
 * revoked; auth, after, honours the same lookup (`presented-key.ts`) on the
 * journal as it stands.
 */
async function countedKey(request: FastifyRequest, services: Services): Promise<KeyRecord | undefined> {
  const presented = await presentedKeyOf(request, services.keys);
  const record = presented.kind === 'key' ? presented.found?.record : undefined;
  return record && services.keys.honours(record) ? record : undefined;
}

type Check = ReturnType<FastifyInstance['createRateLimit']>;
type Counted = Extract<Awaited<ReturnType<Check>>, { isAllowed: false }>;

/** One checker over one store of the plugin (its Redis store, or its in-memory one), in a scope of its own. */
async function checkerOver(app: FastifyInstance, store: { redis: Redis; nameSpace: string } | { cache: number }, perSecond: number): Promise<Check> {
  let check: Check | undefined;
  await app.register(async (scope) => {
    // global: false: the plugin adds no hook of its own; the one hook below asks it.
    await scope.register(rateLimit, { global: false, max: perSecond, timeWindow: WINDOW_MS, keyGenerator: (request) => (request as Limited)[CALLER]!.id, ...store });
    check = scope.createRateLimit();
  });
  return check!;
}

const CALLER = Symbol('rate-limit caller');
type Limited = FastifyRequest & { [CALLER]?: Caller };

/** A Redis URL as the logs may show it: no password. */
const redacted = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

/**
 * The Redis store's client: never queues a command while disconnected, gives
 * up on one that hangs, reconnects forever in the background. Loaded only
 * when a Redis is configured (ioredis alone takes a tenth of a start-up).
 */
async function redisClient(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 250,
    retryStrategy: (times) => Math.min(100 * times, 2000),
  });
}

/**
 * Installs the rate limit on every request of the app, ahead of auth (so a
 * limited request costs one key lookup and a counter, nothing more).
 */
export async function installRateLimit(app: FastifyInstance, services: Services, options: RateLimitOptions): Promise<void> {
  const { perSecond } = options;
  const policy = `${POLICY};q=${perSecond};w=${WINDOW_MS / 1000}`;
  const local = await checkerOver(app, { cache: 100_000 }, perSecond);
  const shared = options.redisUrl ? await sharedChecker(app, options.redisUrl, options.redisPrefix ?? DEFAULT_REDIS_PREFIX, perSecond) : undefined;

  app.addHook('onRequest', async (request, reply) => {
    // Read once: Fastify builds `routeOptions` anew on every read.
    const route = request.routeOptions;
    if (route.config?.rateLimitExempt !== undefined) return;
    // Inside a sandbox grain the key, if any, is not looked up: the grain is the caller.
    const caller = grainCaller(request, route.url) ?? keyOrAddress(request, await countedKey(request, services));
    (request as Limited)[CALLER] = caller;
    const counted = ((shared ? await shared(request) : undefined) ?? (await local(request))) as Counted;
    const seconds = Math.max(1, counted.ttlInSeconds);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `${POLICY};r=${counted.remaining};t=${seconds}`);
    if (counted.isExceeded) refuse(reply, caller, perSecond, seconds);
  });
}

function refuse(reply: FastifyReply, caller: Caller, perSecond: number, retryAfterSeconds: number): never {
  countRateLimited(caller.kind);
  reply.header('retry-after', String(retryAfterSeconds));
  throw refusal('RATE_LIMITED', { caller: caller.said, limit: perSecond, retryAfterSeconds }, { retryAfterSeconds, rateLimit: { requestsPerSecond: perSecond, windowSeconds: WINDOW_MS / 1000, caller: caller.kind } });
}

/**
 * The counter in Redis, or undefined when Redis does not answer (the caller
 * then counts in memory). Waits up to a second for the first connection, so
 * a service started beside a live Redis counts there from its first request;
 * an unreachable one is logged and the service starts anyway.
 */
async function sharedChecker(app: FastifyInstance, url: string, prefix: string, perSecond: number): Promise<(request: FastifyRequest) => Promise<Counted | undefined>> {
  const redis = await redisClient(url);
  const where = redacted(url);
  let down = false;
  let askAgainAt = 0;
  const wentDown = (error: unknown) => {
    askAgainAt = Date.now() + REDIS_RETRY_MS;
    if (down) return;
    down = true;
    app.log.warn({ redis: where, err: String(error) }, 'rate limit: Redis does not answer; counting in this process until it does');
  };
  // ioredis reports every failed (re)connection here; the first one of an outage is logged.
  redis.on('error', wentDown);
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    app.log.info({ redis: where }, 'rate limit: Redis answers again; counting there');
  });
  app.addHook('onClose', async () => void redis.disconnect());
  await new Promise<void>((settle) => {
    const timer = setTimeout(settle, 1000);
    redis.once('ready', () => (clearTimeout(timer), settle()));
  });
  if (redis.status !== 'ready') wentDown(new Error(`no answer from ${where} within 1 s`));
  const check = await checkerOver(app, { redis, nameSpace: prefix }, perSecond);
  return async (request) => {
    if (redis.status !== 'ready' || Date.now() < askAgainAt) return undefined;
    try {
      return (await check(request)) as Counted;
    } catch (error) {
      wentDown(error);
      return undefined;
    }
  };
}

/** Reads the limits from the environment; a malformed value stops the start, naming the variable. */
export function callerLimitsFromEnv(env: NodeJS.ProcessEnv): { rateLimit?: RateLimitOptions; maxStreams?: number } {
  const count = (name: string, fallback: number, what: string): number | undefined => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    if (raw.toLowerCase() === 'off') return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > 1_000_000) throw new Error(`${name} must be a whole number of ${what} from 1 to 1000000, or "off" (no limit); got "${env[name]}"`);
    return n;
  };
  const perSecond = count('LEGALWORK_RATE_LIMIT', DEFAULT_RATE_LIMIT, 'requests per second per caller');
  const maxStreams = count('LEGALWORK_MAX_STREAMS', DEFAULT_MAX_STREAMS, 'open event streams per caller');
  const redisUrl = env.LEGALWORK_REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(redisUrl).protocol;
    } catch {
      // Reported below.
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error(`LEGALWORK_REDIS_URL must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379); got "${redacted(redisUrl)}"`);
  }
  const redisPrefix = env.LEGALWORK_REDIS_PREFIX?.trim() || undefined;
  if (redisPrefix !== undefined && redisPrefix.length > 200) throw new Error('LEGALWORK_REDIS_PREFIX must be at most 200 characters');
  return {
    ...(perSecond !== undefined ? { rateLimit: { perSecond, ...(redisUrl ? { redisUrl } : {}), ...(redisPrefix ? { redisPrefix } : {}) } } : {}),
    ...(maxStreams !== undefined ? { maxStreams } : {}),
  };
}
