/**
 * JSON request bodies, parsed one way for the whole app.
 *
 * - A body nested deeper than `MAX_BODY_DEPTH` is refused 400 before it is
 *   parsed: everything that reads a body after the parser (schema
 *   validation, the key scans of the Gate and the grain doors, the journal's
 *   serializer) recurses, and a deep enough body would exhaust the stack
 *   and answer 500. The depth is counted by an iterative scan of the text,
 *   which recurses over nothing.
 * - The text is kept on `request.rawBody`: a signature is checked over the
 *   exact bytes (the supply network's callback), never over a re-serialized
 *   copy.
 * - Prototype and constructor poisoning are refused, as Fastify's own parser
 *   does (it parses after the scan).
 * - A door whose body is optional (`optionalBody`) sees `{}` when none was
 *   sent, and the contract says so.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { refusal } from '../domain/refusals.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body exactly as it arrived (text). */
    rawBody?: string;
  }
}

/** Far above any body the contract describes (a handful of levels), far below a stack's limit. */
export const MAX_BODY_DEPTH = 32;

/** A door's `preValidation` when its body is optional: it sees `{}` when none was sent. */
export async function optionalBody(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** Whether a route leaves its body optional (so the contract does not mark it required). */
export const isBodyOptional = (route: RouteOptions) => [route.preValidation].flat().includes(optionalBody);

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/** True when the JSON text nests objects and arrays deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

export function installJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // `parseAs: 'string'` hands a string; the parser's type also admits a Buffer.
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
      return done(refusal('BODY_TOO_DEEP', { limit: MAX_BODY_DEPTH }), undefined);
    }
    request.rawBody = text;
    parse(request, text, done);
  });
}
