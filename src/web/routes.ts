/**
 * What a person looks at, as one plugin the HTTP edge registers beside the
 * API (`pages` in `src/http/app.ts`): /docs (with the generated diagrams),
 * /sandbox, /verify, each grain's population page, each record's inspector
 * page (`inspector-routes.ts`), and the pages' scripts. The pages read only
 * the API's public doors; nothing in `src/http` knows them.
 */
import type { FastifyInstance } from 'fastify';
import { refusal } from '../domain/refusals.ts';
import { Media } from '../http/schemas/responses.ts';
import { Type, type Static } from '@sinclair/typebox';
import { pageScripts, SCRIPT_NAME, SCRIPTS_PATH } from './assets.ts';
import { DIAGRAM_NAME, listDiagrams, readDiagram } from './diagrams.ts';
import { docsPage } from './docs.ts';
import { enrollmentInspectorRoutes, inspectorRoutes } from './inspector-routes.ts';
import type { PopulationMachine } from './browser/population-view.ts';
import { populationPage } from './population.ts';
import { WorkspaceParams } from '../schemas/common.ts';
import { FirmParams, TenantParams } from '../schemas/grains.ts';
import { resolveGrain } from '../http/grain.ts';
import type { Services } from '../http/services.ts';
import { sendPage } from './layout.ts';
import { sandboxPage } from './sandbox.ts';
import { verifyPage } from './verify.ts';
import { refused } from '../http/declared-refusals.ts';

const DiagramParams = Type.Object({ file: Type.String({ pattern: DIAGRAM_NAME }) });
const ScriptParams = Type.Object({ file: Type.String({ pattern: SCRIPT_NAME }) });

/** What each grain's population page draws: the machines whose records it holds, and their population doors (`src/http/routes/population.ts`). */
const MATTERS_AND_LADDERS: Array<Omit<PopulationMachine, 'data' | 'diagram'> & { door: string }> = [
  { kind: 'matter', title: 'Matter', noun: 'Matter', nouns: 'Matters', door: '/inspection/matters' },
  { kind: 'deadline-ladder', title: 'Deadline Ladder', noun: 'Deadline Ladder', nouns: 'Deadline Ladders', door: '/inspection/deadlines' },
];
const ENROLLMENTS: typeof MATTERS_AND_LADDERS = [{ kind: 'enrollment', title: 'Enrollment', noun: 'Enrollment', nouns: 'Enrollments', door: '/inspection/enrollments' }];

const GATHERED = [
  { prefix: '', params: undefined, grain: () => "one API key's records at the top level", keyed: true, machines: MATTERS_AND_LADDERS },
  { prefix: '/workspaces/:workspaceId', params: WorkspaceParams, grain: (p: Record<string, string>) => `workspace ${p.workspaceId}`, keyed: false, machines: MATTERS_AND_LADDERS },
  { prefix: '/tenants/:tenantId', params: TenantParams, grain: (p: Record<string, string>) => `tenant ${p.tenantId}`, keyed: false, machines: MATTERS_AND_LADDERS },
  { prefix: '/firms/:firmId', params: FirmParams, grain: (p: Record<string, string>) => `firm ${p.firmId}`, keyed: false, machines: ENROLLMENTS },
];

export async function webRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.get('/docs', { schema: { summary: 'The docs page for people', description: 'An HTML page: what the service is, how to start, and the diagrams of its machines.', tags: ['discovery'], response: { 200: Media('text/html', 'the docs page') } } }, async (_request, reply) => sendPage(reply, docsPage(await listDiagrams())));

  app.get('/sandbox', { schema: { summary: 'The sandbox page: walk a Matter in the browser', description: 'An HTML page that opens a sandbox workspace and walks a Matter through its stages by clicking.', tags: ['discovery'], response: { 200: Media('text/html', 'the sandbox page') } } }, async (_request, reply) => sendPage(reply, sandboxPage()));

  app.get('/verify', { schema: { summary: 'The suite page, naming the suite and its digest pin', description: 'An HTML page for people naming the suite and its pin.', tags: ['discovery'], response: { 200: Media('text/html', 'the suite page') } } }, async (_request, reply) => sendPage(reply, verifyPage()));

  for (const gathered of GATHERED) {
    const nouns = gathered.machines.map((m) => m.nouns).join(' and ');
    app.get<{ Params: Record<string, string> }>(
      `${gathered.prefix}/inspect`,
      // The grain resolves as its population doors' does: an unknown or expired one is their refusal.
      { preHandler: resolveGrain(services), schema: { summary: `Where ${nouns} gather: the page`, description: `An HTML page: the grain's ${nouns} on their machine's generated diagram: how many are in each state (the oldest there, and how long the waiting ones have waited), how many times each transition was taken; a click (or Enter) on a state lists its records a page at a time, oldest first, each opening its inspector. It reads the population doors (…${gathered.machines.map((m) => m.door).join(', …')}).${gathered.keyed ? ' At the top level they count one API key\'s records: the page asks for the key and keeps it in its memory only.' : ''}`, tags: ['discovery'], ...(gathered.params ? { params: gathered.params } : {}), response: { 200: Media('text/html', 'the population page') } } },
      async (request, reply) => {
        const path = request.url.split('?')[0];
        const base = path.slice(0, -'/inspect'.length);
        const machines = gathered.machines.map(({ door, ...m }) => ({ ...m, data: `${base}${door}`, diagram: `/docs/diagrams/${m.kind}.svg` }));
        return sendPage(reply, populationPage({ grain: gathered.grain(request.params), path, machines, keyed: gathered.keyed }));
      },
    );
  }

  // Each record's inspector page, beside its inspection door, on every grain that serves the record.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId']) await app.register(inspectorRoutes, { services, prefix });
  await app.register(enrollmentInspectorRoutes, { services });

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

  app.get<{ Params: Static<typeof ScriptParams> }>(
    `${SCRIPTS_PATH}/:file`,
    { schema: { summary: 'A page\'s script', description: 'The script of a page for people (the inspector, the population page, /docs, /sandbox), bundled from its TypeScript module and named by its content, as the page names it. Cached for good: a changed script is a new name. It runs only on its page, under the page\'s nonce.', tags: ['discovery'], params: ScriptParams, response: { 200: Media('text/javascript', 'the script'), 404: refused('a typed EMPTY: no script of that name in the running build', ['SCRIPT_NOT_FOUND']) } } },
    async (request, reply) => {
      const { file } = request.params;
      const script = (await pageScripts()).bytes(file);
      if (!script) throw refusal('SCRIPT_NOT_FOUND', { file }, { results: [] });
      return reply.type('text/javascript; charset=utf-8').headers({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' }).send(script);
    },
  );
}
