/**
 * The published contract suite: `GET /verify/suite.json` serves the suite's
 * exact bytes (the pin is their sha256), `GET /verify` the page naming it.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SUITE_BYTES, SUITE_PIN } from '../../verify/suite.ts';
import { sendPage } from '../pages/layout.ts';
import { verifyPage } from '../pages/verify.ts';
import { Media } from '../schemas/responses.ts';

const Requirement = Type.Object({ id: Type.String(), method: Type.Literal('GET'), path: Type.String(), status: Type.Integer(), expect: Type.Object({ contentType: Type.String() }), why: Type.String() });
const Suite = Type.Object({ $type: Type.Literal('Suite'), name: Type.String(), version: Type.Integer(), requirements: Type.Array(Requirement, { minItems: 1 }) }, { description: 'the suite; its pin is the sha256 of these exact bytes' });

export async function verifyRoutes(app: FastifyInstance) {
  app.get('/verify/suite.json', { schema: { summary: 'The contract suite (declarative GET rows over live doors)', tags: ['discovery'], response: { 200: Suite } } }, async (_request, reply) => {
    reply.type('application/json; charset=utf-8').header('etag', `"${SUITE_PIN}"`);
    return reply.send(SUITE_BYTES);
  });

  app.get('/verify', { schema: { summary: 'The suite page, naming the suite and its digest pin', tags: ['discovery'], response: { 200: Media('text/html', 'the suite page') } } }, async (_request, reply) => sendPage(reply, verifyPage()));
}
