/**
 * A door's answer rendered inside its command's commit, for a request under
 * an Idempotency-Key (issue 48; the records are `engine/idempotency.ts`).
 *
 * A door whose answer is a pure function of what its command decided (a
 * Matter's advance that commits a stage, a create) says how to render it
 * (`answerAhead`) before it runs its command. The command says what it
 * answers before its commit lands (`Command.ahead`), and the record of the
 * key is completed inside the append with those bytes: the key, what the
 * command wrote and its answer commit together, in one row. The door then
 * sends the very bytes its record holds (`sendAnswered`): serialized once,
 * never copied into a second transaction, and a retry is sent the same.
 *
 * The bytes are the ones the route would send: its own serializer for the
 * status (`serializeInput`), the grain's provenance stamped as the
 * app's preSerialization stamps it, and the headers a replay repeats. The
 * render touches nothing of the reply: should the commit fail, the refusal
 * goes out as it would have.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_TYPE } from './etag.ts';
import { stamped } from './sandbox.ts';

/** What a door answers: its status, its body (as the route returns it), and the ETag or Location it sends beside. */
export interface Rendered {
  status: number;
  body: unknown;
  etag?: string;
  location?: string;
}

/** Lets this request's answer ride in its command's commit, when it runs under an Idempotency-Key; a no-op otherwise. */
export function answerAhead<T>(request: FastifyRequest, reply: FastifyReply, render: (value: T) => Rendered): void {
  const claim = request.idempotency;
  if (!claim) return;
  claim.render = (value) => {
    const { status, body, etag, location } = render(value as T);
    const payload = reply.serializeInput((request.grain ? stamped(request.grain, body) : body) as Record<string, unknown>, String(status)) as string;
    return { status, headers: { 'content-type': JSON_TYPE, ...(etag !== undefined ? { etag } : {}), ...(location !== undefined ? { location } : {}) }, payload };
  };
}

/** Sends the answer its command's commit kept, as kept, and says so; false: none was (no key, or an answer that could not be said ahead), and the route answers as usual. */
export function sendAnswered(request: FastifyRequest, reply: FastifyReply): boolean {
  const answer = request.idempotency?.answer;
  if (!answer) return false;
  reply.code(answer.status).headers(answer.headers).send(answer.payload);
  return true;
}
