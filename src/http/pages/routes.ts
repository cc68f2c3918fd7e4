/** The pages for people: /docs (with the generated diagrams) and /sandbox. */
import type { FastifyInstance } from 'fastify';
import { refusal } from '../../domain/refusals.ts';
import { Media } from '../schemas/responses.ts';
import { Type, type Static } from '@sinclair/typebox';
import { DIAGRAM_NAME, listDiagrams, readDiagram } from './diagrams.ts';
import { docsPage } from './docs.ts';
import { sendPage } from './layout.ts';
import { sandboxPage } from './sandbox.ts';
import { refused } from '../declared-refusals.ts';

const DiagramParams = Type.Object({ file: Type.String({ pattern: DIAGRAM_NAME }) });

export async function pageRoutes(app: FastifyInstance) {
  app.get('/docs', { schema: { summary: 'The docs page for people', description: 'An HTML page: what the service is, how to start, and the diagrams of its machines.', tags: ['discovery'], response: { 200: Media('text/html', 'the docs page') } } }, async (_request, reply) => sendPage(reply, docsPage(await listDiagrams())));

  app.get('/sandbox', { schema: { summary: 'The sandbox page: walk a Matter in the browser', description: 'An HTML page that opens a sandbox workspace and walks a Matter through its stages by clicking.', tags: ['discovery'], response: { 200: Media('text/html', 'the sandbox page') } } }, async (_request, reply) => sendPage(reply, sandboxPage()));

  // Params typed from their schema by hand: the type provider would also type the reply as the Media schema's string, and an SVG is sent as a Buffer.
  app.get<{ Params: Static<typeof DiagramParams> }>(
    '/docs/diagrams/:file',
    { schema: { summary: 'A generated state diagram (SVG)', description: 'The state diagram of one machine (Matter, Deadline Ladder, Enrollment), generated from the machine itself.', tags: ['discovery'], params: DiagramParams, response: { 200: Media('image/svg+xml', 'the diagram, generated from its machine'), 404: refused('a typed EMPTY: no diagram of that name was generated', ['DIAGRAM_NOT_GENERATED']) } } },
    async (request, reply) => {
      const { file } = request.params;
      const svg = await readDiagram(file);
      if (!svg) throw refusal('DIAGRAM_NOT_GENERATED', { file }, { results: [] });
      // Served as an image: no script may run in it even if opened directly.
      return reply.type('image/svg+xml').headers({ 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'", 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).send(svg);
    },
  );
}
