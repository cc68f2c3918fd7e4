/**
 * Which refusals each operation can answer, by status and catalog code, set
 * on the route itself (so they are serialized by the refusal's schema and the
 * reply check holds them) and published in the contract as `x-refusal-codes`.
 *
 * Two sources, merged per status:
 * - what the route's shape implies: any door refuses a malformed, unknown,
 *   revoked or expired key (401) or a malformed X-Actor/X-Mandate (422), answers 408 when the
 *   request does not arrive whole in time (written by the edge itself,
 *   `edge-limits.ts`) and 500 on an internal fault; a door that takes a body
 *   can refuse it (400, 413, 415); a door with a schema refuses what
 *   breaks it (422); a keyed door refuses no key (401); a paid act refuses
 *   past the key's ceiling (403); a door in a sandbox grain answers 404
 *   when the grain is unknown or expired; a
 *   write refuses an Idempotency-Key it cannot keep or that names another
 *   request (400, 409, 422), and answers 409 when other writers kept beating
 *   it to its commit; every door but one that says why it is not
 *   (`config.rateLimitExempt`) refuses a caller past the rate limit (429);
 * - what the route declares beside its success (`refused(description, codes)`
 *   in its response map): the refusals of its own logic.
 * No catch-all: a status neither source names is one the operation never
 * answers, and the reply check fails a test that sees one.
 */
import type { RouteOptions } from 'fastify';
import { REFUSALS } from '../domain/refusals.ts';
import { needsKey } from './auth.ts';
import { takesIdempotencyKey } from './idempotency.ts';
import { Refusal, ref } from '../schemas/components.ts';

export type RefusalCode = keyof typeof REFUSALS;

/** A refusal an operation answers at one status, with the catalog codes it can carry there. */
export const refused = (description: string, codes: RefusalCode[]) => ({ ...ref(Refusal, description), 'x-refusal-codes': codes });

type Declared = ReturnType<typeof refused>;
const isDeclared = (answer: unknown): answer is Declared => typeof answer === 'object' && answer !== null && 'x-refusal-codes' in answer;

const GRAIN_GONE: Array<[RegExp, RefusalCode]> = [
  [/^\/workspaces\/:workspaceId(\/|$)/, 'WORKSPACE_NOT_FOUND'],
  [/^\/tenants\/:tenantId(\/|$)/, 'TENANT_NOT_FOUND'],
  [/^\/firms\/:firmId(\/|$)/, 'FIRM_NOT_FOUND'],
];

/**
 * What HTTP itself refuses before any route runs (`client-errors.ts`,
 * `drain.ts`): any request, routed or not, can be answered these.
 */
const HTTP_REFUSALS: RefusalCode[] = ['MALFORMED_URL', 'MALFORMED_HTTP', 'HEADERS_TOO_LARGE', 'REQUEST_TIMEOUT', 'SERVICE_DRAINING'];
/** What any door refuses a presented key with: malformed, never issued, revoked, or rolled and past its expiry. */
const KEY_REFUSALS: RefusalCode[] = ['KEY_MALFORMED', 'KEY_UNKNOWN', 'KEY_REVOKED', 'KEY_EXPIRED'];
/** What parsing a request body refuses: any request that sends one, routed or not. */
const BODY_REFUSALS: RefusalCode[] = ['MALFORMED_JSON', 'EMPTY_JSON_BODY', 'BAD_CONTENT_LENGTH', 'BAD_REQUEST', 'BODY_TOO_DEEP', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** The responses declaring each of `codes` at its catalog status (merged into what `response` declares there). */
function declaring(response: Record<string, unknown>, description: string, codes: RefusalCode[]): Record<string, unknown> {
  // Grouped by status, in the order first named: one merge a status, not one a code (every route of every app is declared here).
  const byStatus = new Map<number, Set<RefusalCode>>();
  for (const code of codes) byStatus.set(REFUSALS[code].status, (byStatus.get(REFUSALS[code].status) ?? new Set()).add(code));
  for (const [status, group] of byStatus) response = withCodes(response, status, description, [...group]);
  return response;
}

/** The refusals the route's shape implies, as catalog codes. */
function impliedBy(route: RouteOptions): RefusalCode[] {
  const method = String(route.method);
  const schema = route.schema ?? {};
  const codes: RefusalCode[] = [...HTTP_REFUSALS, ...KEY_REFUSALS, 'INVALID_PROVENANCE', 'INTERNAL'];
  // Every door that takes a request body parses it, whether or not a schema then reads it.
  if (!['GET', 'HEAD'].includes(method)) codes.push(...BODY_REFUSALS, 'WRITE_CONTENDED');
  if (schema.body || schema.params || schema.querystring || schema.headers) codes.push('INVALID_REQUEST');
  if (needsKey(method, route.url, route.config?.keyless)) codes.push('KEY_REQUIRED');
  if (route.config?.paidAct) codes.push('SPEND_CEILING');
  if (route.config?.rateLimitExempt === undefined) codes.push('RATE_LIMITED');
  const inGrain = GRAIN_GONE.filter(([prefix]) => prefix.test(route.url));
  for (const [, code] of inGrain) codes.push(code);
  if (takesIdempotencyKey(method)) {
    codes.push('IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_ANSWER_LOST');
    // Only the top level has callers with nothing to keep a key under (no API key, no signature).
    if (inGrain.length === 0) codes.push('IDEMPOTENCY_KEY_UNSCOPED');
  }
  return codes;
}

/** The responses with `codes` declared at `status`: merged into a refusal already declared there, or a new one. */
function withCodes(response: Record<string, unknown>, status: number, description: string, codes: RefusalCode[]): Record<string, unknown> {
  const answer = response[status];
  if (!isDeclared(answer)) return { ...response, [status]: refused(description, codes) };
  const added = codes.filter((code) => !answer['x-refusal-codes'].includes(code));
  return added.length ? { ...response, [status]: { ...answer, 'x-refusal-codes': [...answer['x-refusal-codes'], ...added] } } : response;
}

/** The route's responses with every refusal it can answer declared by status (each once, codes merged). */
export function declareRefusals(route: RouteOptions): Record<string, unknown> {
  return declaring({ ...(route.schema?.response as Record<string, unknown> | undefined) }, 'a worded refusal: nothing was written', impliedBy(route));
}

/** What a request no route serves is answered: the path unknown, the method not served, or the refusals every door shares (its body is parsed before the route is found missing). */
export const UNROUTED = declaring(
  {
    401: refused('a malformed, unknown, revoked or expired key', KEY_REFUSALS),
    404: refused('no route serves this path', ['ROUTE_NOT_FOUND']),
    405: refused('the path is served, under other methods (named in Allow)', ['METHOD_NOT_ALLOWED']),
    422: refused('a malformed X-Actor or X-Mandate', ['INVALID_PROVENANCE']),
    429: refused('BLOCKED: the caller is past the per-caller rate limit (Retry-After says when)', ['RATE_LIMITED']),
    500: refused('an internal error', ['INTERNAL']),
  },
  'a worded refusal: nothing was written',
  [...HTTP_REFUSALS, ...BODY_REFUSALS],
);

/** Adds refusals a scope puts in front of routes it mounts (a Tenant's rules on the shared Matter doors) to what the route declares. */
export function addRefusals(route: RouteOptions, status: number, description: string, codes: RefusalCode[]): void {
  route.schema = { ...route.schema, response: withCodes((route.schema?.response ?? {}) as Record<string, unknown>, status, description, codes) };
}

/** The codes an operation declares at a status (undefined: the status is not a refusal it declares). */
export const declaredCodes = (answer: unknown): readonly string[] | undefined => (isDeclared(answer) ? answer['x-refusal-codes'] : undefined);
