/**
 * What the HTTP edge tells an operator (through the telemetry port,
 * `src/lib/telemetry.ts`): each answered request's duration by route
 * template, method and status class; every refusal answered, by its catalog
 * code; each request the rate limit refused, by the kind of caller. Labels
 * come from closed sets: the routes the app registered (`unmatched` for a
 * path no route serves), the methods HTTP names, the catalog's codes. Never
 * a path's ids, a key or an address.
 */
import type { FastifyInstance } from 'fastify';
import { counter, histogram, metricsOn, statusClass } from '../lib/telemetry.ts';

/** From 1 ms (a kept answer sent as stored) to 10 s (a slow journal, a supply network at its timeout). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requestDuration = histogram<'route' | 'method' | 'status_class'>({
  name: 'legalwork_http_request_duration_seconds',
  help: 'Requests answered, by route template, method and status class, and how long each took from its arrival to its last byte (its _count is the request count). An event stream counts once, when it closes.',
  labelNames: ['route', 'method', 'status_class'],
  buckets: DURATION_BUCKETS,
});

const refusals = counter<'code'>({
  name: 'legalwork_refusals_total',
  help: 'Refusals answered, by their code in the refusal catalog (src/domain/refusals.ts), the edge\'s own (malformed HTTP, timeouts) included.',
  labelNames: ['code'],
});

const rateLimited = counter<'caller'>({
  name: 'legalwork_rate_limit_rejections_total',
  help: 'Requests the per-caller rate limit refused (429 RATE_LIMITED) before running them, by the kind of caller counted: api_key, sandbox_grain or address.',
  labelNames: ['caller'],
});

/** HTTP's methods, and Fastify's others: what a `method` label may say. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A refusal was answered: counted by its code. */
export const countRefusal = (code: string): void => {
  if (metricsOn()) refusals.inc({ code });
};

/** The rate limit refused a request of this kind of caller. */
export const countRateLimited = (callerKind: string): void => {
  if (metricsOn()) rateLimited.inc({ caller: callerKind.replace(' ', '_') });
};

/** Times every answer: a callback hook, without a promise. */
export function installRequestMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requestDuration.observe(reply.elapsedTime / 1000, { route, method: METHODS.has(request.method) ? request.method : 'other', status_class: statusClass(reply.statusCode) });
    done();
  });
}
