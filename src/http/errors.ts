/**
 * One error handler for every refusal. Refusals from the domain carry their own
 * status and code; framework errors (bad JSON, oversize body, failed schema)
 * become worded 4xx; a write beaten to its commit every time it was decided
 * is a 409; anything else is a 500 that never leaks internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { VersionConflict } from '../journal/store.ts';
import { AllowedMethods } from './allowed-methods.ts';
import { countRefusal } from './edge-metrics.ts';
import { ReplyViolation } from './reply-check.ts';
import { validationRefusal } from './validation.ts';

/** Fastify's own refusals, by its error code, as the catalog words them. */
const FRAMEWORK: Record<string, (detail: string) => Refusal> = {
  FST_ERR_CTP_INVALID_JSON_BODY: (detail) => refusal('MALFORMED_JSON', { detail }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => refusal('EMPTY_JSON_BODY', {}),
  FST_ERR_CTP_BODY_TOO_LARGE: (detail) => refusal('BODY_TOO_LARGE', { detail }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => refusal('UNSUPPORTED_MEDIA_TYPE', {}),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: (detail) => refusal('BAD_CONTENT_LENGTH', { detail }),
};

const send = (reply: FastifyReply, refused: Refusal) => {
  countRefusal(refused.code);
  return reply.status(refused.status).send(refused.toBody());
};

export function installErrorHandling(app: FastifyInstance) {
  const allowed = new AllowedMethods(app);
  app.setErrorHandler((error: FastifyError | Refusal, request, reply) => {
    if (error instanceof Refusal) return send(reply, error);
    // A command decided again as often as it may, and still beaten to its commit (several processes on one record): nothing was written.
    if (error instanceof VersionConflict) return send(reply, refusal('WRITE_CONTENDED', { stream: error.stream }));
    if (error.validation) return send(reply, validationRefusal(error.validation, error.validationContext ?? 'request', error.message));
    const known = error.code ? FRAMEWORK[error.code] : undefined;
    if (known) return send(reply, known(error.message));
    // Prototype-poisoned JSON, an aborted upload and the like: the framework refuses the request itself.
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return send(reply, refusal('BAD_REQUEST', { detail: error.message }));
    // A reply its schema would not write (on in tests only): said loudly, so the test that produced it fails with the reason.
    if (error instanceof ReplyViolation) console.error(error.message);
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, refusal('INTERNAL', { requestId: request.id }));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const methods = allowed.of(path);
    if (methods.length === 0) return send(reply, refusal('ROUTE_NOT_FOUND', { method: request.method, path }));
    reply.header('allow', methods.join(', '));
    return send(reply, refusal('METHOD_NOT_ALLOWED', { method: request.method, path, allowed: methods }, { allowed: methods }));
  });
}
