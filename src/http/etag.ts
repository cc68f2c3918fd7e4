/**
 * Conditional reads (RFC 9110 §8.8.3 and §13.1.2): a read whose route says
 * `config.etag` answers a strong `ETag`, and a request whose `If-None-Match`
 * matches it is answered `304 Not Modified` with no body, so a client that
 * asks again and again (the CLI's `inspect --follow` at the top level, an
 * agent polling a Matter waiting on its Signer) is sent the answer only when
 * it changed.
 *
 * **What the tag is.** The first 22 base64url characters (132 bits) of the
 * sha256 of the exact bytes the answer would send. Derived from the bytes,
 * not from stream versions, because an answer depends on more than one
 * stream (a Matter's answer carries its Asset's Deadline Ladder, which ticks
 * on a stream of its own; a page depends on every Matter in it, and a
 * sandbox answer on its grain's stamp) and on the code that writes it (a
 * release that changes an answer's shape changes its bytes): the tag changes
 * exactly when the bytes do, whatever they depend on. The answer is still
 * built to be hashed; what a match saves is sending it (and a client's parse
 * and print of it). Except where the answer's bytes are kept with their tag
 * (a resident Matter's `GET /matters/{id}`: `answer-bytes.ts`): the reply
 * then carries the tag already (`tagKnown`), and nothing is built or hashed.
 * A read whose route tags its record's version (`GET
 * /matters/{id}`: `versions.ts`) keeps that version in front,
 * `"<version>.<digest>"`, so the tag it answers still works as the If-Match
 * of a write.
 *
 * **No caller learns anything from a tag.** It is a function of the bytes
 * the caller is sent, nothing else: a key-scoped list (the top level's
 * `GET /matters`) has another key's tag only when the two answers are the
 * same bytes, which each caller reads in full anyway; a tag never names a
 * version or a count the answer does not show.
 *
 * **How `If-None-Match` is read.** Only on GET and HEAD, only when the
 * answer would be 200 (RFC 9110 §13.1: any other answer ignores
 * preconditions). `*` matches any current answer; otherwise the listed tags
 * are compared weakly (`W/"x"` matches `"x"`), as §13.1.2 says; a member that
 * is not an entity-tag is ignored, never refused. A 304 carries the ETag and
 * no body, no Content-Type and no Content-Length (a HEAD's 304 keeps the
 * length the 200 would have, which §8.6 allows).
 *
 * The hooks are the routes' own (added where a route is declared), so a door
 * without `config.etag` pays nothing.
 */
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This read answers an ETag and honours If-None-Match with 304. */
    etag?: true;
  }
}

/** The request header, as a read's schema declares it. */
export const IF_NONE_MATCH = {
  type: 'string',
  description: 'the ETag(s) of an answer you hold (or `*`): when the answer is still the same bytes it is 304 with no body. Tags are compared weakly (`W/"x"` matches `"x"`); a member that is not an entity-tag is ignored',
  examples: ['"3.q1VgZ0aYk0n7m4w2Jx9bLg"'],
} as const;

const ETAG_SAYS = 'a strong entity-tag of this answer\'s bytes (`"<digest>"`, or `"<version>.<digest>"` on a record\'s read, whose version a write\'s If-Match takes): send it back as If-None-Match to be answered 304 while it is unchanged';
const ETAG_EXAMPLES = ['"3.q1VgZ0aYk0n7m4w2Jx9bLg"'];

/** The response header, as the contract's document declares it on a tagged read's 200. */
export const ETAG_HEADER = { description: ETAG_SAYS, schema: { type: 'string', examples: ETAG_EXAMPLES } } as const;

/** The 304 a tagged read declares, as a reply schema (@fastify/swagger makes its `headers` the answer's). Not JSON: it has no body. */
export const NOT_MODIFIED = {
  type: 'null',
  description: 'Not Modified: the If-None-Match sent names this answer\'s ETag (or is `*`); no body, the ETag repeated',
  headers: { ETag: { type: 'string', description: ETAG_SAYS, examples: ETAG_EXAMPLES } },
} as const;

/** The marker an operation of a tagged read carries, for `declareEtagHeaders` in the contract's last pass. */
const MARK = 'x-etag';

/** The tag of `bytes`, after the version the route tagged when it did (`"12"`). */
export function etagOf(bytes: string | Buffer, version?: string): string {
  const digest = hash('sha256', bytes, 'base64url').slice(0, 22);
  const v = version === undefined ? undefined : /^"(\d+)"$/.exec(version)?.[1];
  return v === undefined ? `"${digest}"` : `"${v}.${digest}"`;
}

/** An entity-tag's opaque part, weak or strong (`W/"x"` and `"x"` give `x`); null for what is not one. */
const opaque = (member: string): string | null => /^(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/.exec(member.trim())?.[1] ?? null;

/** Whether `If-None-Match` (as received: one field, or several) matches `etag`: `*`, or any listed tag weakly equal to it. */
export function noneMatchHolds(field: string | string[] | undefined, etag: string): boolean {
  if (field === undefined) return false;
  const current = opaque(etag);
  for (const member of (Array.isArray(field) ? field.join(',') : field).split(',')) {
    if (member.trim() === '*') return true;
    const tag = opaque(member);
    if (tag !== null && tag === current) return true;
  }
  return false;
}

/** Replies whose ETag header is already the tag of the bytes they send (kept with them: `answer-bytes.ts`), which `tag` takes as it is. */
const known = new WeakSet<FastifyReply>();

/** What Fastify writes for a serialized JSON reply: bytes kept from one are sent as the same. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends kept JSON bytes (a string or a Buffer) as a serialized reply is sent, with the tag kept beside them. */
export function sendKeptJson(reply: FastifyReply, bytes: string | Buffer, etag: string): void {
  reply.header('content-type', JSON_TYPE);
  tagKnown(reply, etag);
  reply.send(bytes);
}

/** A reply's bytes to keep for long: off Node's shared pool, where a small pooled Buffer would hold its whole 8 KiB slab (bytes of their own are kept as they are). */
export function bytesToKeep(payload: string | Buffer): Buffer {
  if (typeof payload !== 'string' && payload.byteLength === payload.buffer.byteLength) return payload;
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(payload));
  if (typeof payload === 'string') bytes.write(payload);
  else payload.copy(bytes);
  return bytes;
}

/** Says that `etag` is the tag of the bytes this reply sends: `tag` answers it (and a matching If-None-Match) without hashing them. */
export function tagKnown(reply: FastifyReply, etag: string): void {
  known.add(reply);
  reply.header('etag', etag);
}

/**
 * The route's onSend: tags a 200 and answers 304 when If-None-Match matches.
 * Runs before Fastify's own HEAD handler (which empties a HEAD's body), so a
 * HEAD is tagged by the bytes its GET would send.
 */
function tag(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void): void {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload);
  const given = reply.getHeader('etag');
  const etag = known.has(reply) ? (given as string) : etagOf(payload, typeof given === 'string' ? given : undefined);
  reply.header('etag', etag);
  if (!noneMatchHolds(request.headers['if-none-match'], etag)) return done(null, payload);
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  // A HEAD hands its bytes on to Fastify's HEAD handler, which writes their length and sends none.
  done(null, request.method === 'HEAD' ? payload : null);
}

/** A tagged read's schema with the If-None-Match header and its 304 declared (a copy: one door's schema is shared by every grain prefix it is mounted under). */
function declare(schema: Record<string, unknown>): Record<string, unknown> {
  const headers = schema.headers as { properties?: Record<string, unknown> } | undefined;
  return {
    ...schema,
    headers: { type: 'object', ...headers, properties: { ...headers?.properties, 'if-none-match': IF_NONE_MATCH } },
    response: { ...(schema.response as Record<string, unknown>), 304: NOT_MODIFIED },
    [MARK]: true,
  };
}

/**
 * Installs conditional reads on every route that says `config.etag`: its
 * schema declares If-None-Match and the 304, and its own onSend (ahead of
 * any other it has) tags and answers. Install it after the contract's own
 * onRoute (`installContract`), whose copy of the schema it extends.
 */
export function installEtags(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.etag !== true) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.every((m) => m === 'GET' || m === 'HEAD')) throw new Error(`config.etag is for reads: ${methods.join(',')} ${route.url}`);
    if (route.schema) route.schema = declare(route.schema as Record<string, unknown>);
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [tag, ...own];
  });
}

/** In the contract's last pass: a tagged read's 200 declares its ETag (@fastify/swagger takes response headers only inside the reply schema, which the serializer reads). */
export function declareEtagHeaders(operation: Record<string, unknown>): void {
  if (!(MARK in operation)) return;
  delete operation[MARK];
  const ok = (operation.responses as Record<string, { headers?: Record<string, unknown> }> | undefined)?.['200'];
  if (ok && !('$ref' in ok)) ok.headers = { ...ok.headers, ETag: ETAG_HEADER };
}
