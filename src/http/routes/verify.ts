/**
 * The published contract suite: `GET /verify/suite.json` serves the suite's
 * exact bytes (the pin is their sha256); the page naming it, `GET /verify`,
 * is `src/web/verify.ts`.
 */
import { Type } from '@sinclair/typebox';
import { Strict } from '../../schemas/common.ts';
import type { FastifyInstance } from 'fastify';
import { SUITE_BYTES, SUITE_PIN, suiteDocument } from '../../verify/suite.ts';

const Expectation = Strict({
  contentType: Type.String(),
  type: Type.Optional(Type.Union([Type.Literal('OK'), Type.Literal('EMPTY'), Type.Literal('BLOCKED')], { description: 'the typed outcome the body must carry' })),
  equals: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'body fields (dotted paths) and the values they must equal' })),
  has: Type.Optional(Type.Array(Type.String(), { description: 'body fields (dotted paths) that must be present' })),
  contains: Type.Optional(Type.Array(Type.String(), { description: 'strings the body must contain' })),
});
const Requirement = Strict({
  id: Type.String(),
  method: Type.Literal('GET'),
  path: Type.String(),
  status: Type.Integer(),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'request headers the row sends (a conditional read\'s If-None-Match); a runner sends them as they are' })),
  expect: Expectation,
  why: Type.String(),
});
const Suite = Strict({ $type: Type.Literal('Suite'), name: Type.String(), version: Type.Integer(), description: Type.String(), requirements: Type.Array(Requirement, { minItems: 1 }) }, {
  description: 'the suite; its pin is the sha256 of these exact bytes',
  // The served suite itself, cut to its first row: an example that cannot drift from the answer.
  examples: [{ ...suiteDocument(), requirements: suiteDocument().requirements.slice(0, 1) }],
});

export async function verifyRoutes(app: FastifyInstance) {
  app.get('/verify/suite.json', { schema: { summary: 'The contract suite (declarative GET rows over live doors)', description: 'The suite\'s exact bytes; its pin (in the capability card and the ETag) is their sha256. `legalwork verify --url <base>` runs it against any service.', tags: ['discovery'], response: { 200: Suite } } }, async (_request, reply) => {
    reply.type('application/json; charset=utf-8').header('etag', `"${SUITE_PIN}"`);
    return reply.send(SUITE_BYTES);
  });
}
