/**
 * Conditional writes, for every record a write may be conditional on (a
 * Matter, a Deadline Ladder, an Enrollment): the record's version is its
 * ETag, and a write that sends `If-Match: "<version>"` runs only while the
 * record is still at that version (checked in the record's mailbox by the
 * command handler; 412 VERSION_MISMATCH otherwise, nothing written).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The version a write's If-Match names (its schema admits only `"<digits>"`, `"<digits>.<digest>"` from a read tagged by `etag.ts`, or `*`); undefined: the write is unconditional. */
export function expectedVersionOf(request: FastifyRequest): number | undefined {
  const given = request.headers['if-match'];
  return typeof given === 'string' && given !== '*' ? Number(/^"(\d+)/.exec(given)![1]) : undefined;
}

/** A record's version as its ETag: what a later write's If-Match names. */
export const versionTag = (version: number) => `"${version}"`;

/** Answers the record's version as the reply's ETag (`versionTag`). */
export const tagVersion = (reply: FastifyReply, version: number) => reply.header('etag', versionTag(version));
