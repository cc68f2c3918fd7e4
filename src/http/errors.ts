/**
 * One error handler for every refusal. Refusals from the domain carry their own
 * status and code; framework errors (bad JSON, oversize body, failed schema)
 * become worded 4xx; anything else is a 500 that never leaks internals.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { Refusal } from '../domain/refusal.ts';

const FRAMEWORK_CODES: Record<string, { status: number; code: string; error?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'MALFORMED_JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'EMPTY_JSON_BODY', error: 'the body is empty but Content-Type says JSON; send a JSON object' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'BODY_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', error: 'bodies are JSON: send Content-Type: application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'BAD_CONTENT_LENGTH' },
};

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | Refusal, request, reply) => {
    if (error instanceof Refusal) {
      return reply.status(error.status).send(error.toBody());
    }
    if (error.validation) {
      return reply.status(422).send({ error: error.message, code: 'INVALID_REQUEST', rule: 'schema' });
    }
    const known = error.code ? FRAMEWORK_CODES[error.code] : undefined;
    if (known) return reply.status(known.status).send({ error: known.error ?? error.message, code: known.code });
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Prototype-poisoned JSON and the like: the parser refuses it outright.
      return reply.status(error.statusCode).send({ error: error.message, code: error.code ?? 'BAD_REQUEST' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: `internal error; quote request-id ${request.id} when reporting it`, code: 'INTERNAL' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ error: `no route ${request.method} ${request.url.split('?')[0]}`, code: 'ROUTE_NOT_FOUND' });
  });
}
