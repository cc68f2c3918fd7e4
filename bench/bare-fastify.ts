/**
 * The baseline the Matter doors are measured against: a bare Fastify process
 * with the service's own plumbing (body limit, poisoning guards, request ids,
 * the strict Ajv validator, the error handler) and routes that validate a
 * request with the very schemas of the Matter doors and echo it back. No
 * engine, no journal: what is left of a Matter door's cost beyond this is the
 * engine's own (mailbox, Gate, machine, durable commit, views).
 *
 * With LEGALWORK_DATA set it also serves the same advance route plus one
 * group-committed append to the embedded journal (`SqliteJournal`, durable
 * before the reply): what a durable write costs without the engine around it;
 * and the same-work twins of create and advance (`lib/write-twin.ts`, issue
 * 37): `POST /twin/matters` and `POST /twin/matters/:id/advance` write the
 * very appends the doors make (recorded from the engine by the bench and
 * loaded with `PUT /twin/templates`), through the same journal adapter, into
 * a journal of their own that `POST /twin/reset` empties and fills to the
 * service's size, and answer the doors' bytes.
 *
 * Run as a child process by `bench/lib/service.ts`; prints
 * `bare-fastify listening on <url>` on stderr, like the service.
 */
import { createFastify } from '../src/http/app.ts';
import { ok } from '../src/http/envelopes.ts';
import { MatterParams } from '../src/schemas/common.ts';
import { AdvanceBody, CreateMatterBody } from '../src/schemas/matters.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stageEvent } from './lib/stage-event.ts';
import { WriteTwin, type DoorAnswers, type TwinJournals, type WriteTemplates } from './lib/write-twin.ts';

const app = createFastify();

// Beside POST /matters: the creation body, validated and echoed (201, like a create).
app.post('/echo/matters', { schema: { body: CreateMatterBody } }, async (request, reply) => reply.status(201).send(ok({ echo: request.body as Record<string, unknown> })));
// Beside POST /matters/:id/advance: the id and the advance body.
app.post('/echo/matters/:id/advance', { schema: { params: MatterParams, body: AdvanceBody } }, async (request) => ok({ id: (request.params as { id: string }).id, echo: (request.body ?? {}) as Record<string, unknown> }));
// Beside GET /matters/:id: the validated id.
app.get('/echo/matters/:id', { schema: { params: MatterParams } }, async (request) => ok({ id: (request.params as { id: string }).id }));

// Beside the read doors: an answer of the very bytes a door sent, stored by the bench and sent
// back as they are (no engine, no serializer): what sending that much JSON costs by itself.
const answers = new Map<string, string>();
app.put('/echo/answers/:name', async (request) => {
  answers.set((request.params as { name: string }).name, JSON.stringify(request.body));
  return ok({ stored: true });
});
app.get('/echo/answers/:name', async (request, reply) => reply.type('application/json').send(answers.get((request.params as { name: string }).name) ?? '{}'));

// Beside it again: the advance body validated, one stage event appended durably, then echoed.
const journal = process.env.LEGALWORK_DATA ? new SqliteJournal(process.env.LEGALWORK_DATA) : null;
if (journal) {
  const versions = new Map<string, number>();
  app.post('/journal/matters/:id/advance', { schema: { params: MatterParams, body: AdvanceBody } }, async (request) => {
    const id = (request.params as { id: string }).id;
    const note = (request.body as { note?: string } | undefined)?.note ?? 'advanced';
    const version = versions.get(id) ?? 0;
    versions.set(id, version + 1);
    const [written] = await journal.append('bench', [
      { stream: id, expectedVersion: version, events: [stageEvent(id, note, new Date().toISOString())] },
    ]);
    return ok({ id, seq: written.seq, version: written.version });
  });
  app.addHook('onClose', async () => journal.close());

  // The same-work twins: each journal a fresh SqliteJournal (WAL, synchronous=FULL, its writer thread) in a directory of its own.
  const dirs = new Map<object, string>();
  const journals: TwinJournals = {
    async open() {
      const dir = mkdtempSync(join(process.env.LEGALWORK_DATA!, 'twin-'));
      const j = new SqliteJournal(dir);
      dirs.set(j, dir);
      return j;
    },
    async drop(j) {
      await j.close();
      rmSync(dirs.get(j)!, { recursive: true, force: true });
      dirs.delete(j);
    },
  };
  const twin = new WriteTwin(journals);
  app.put('/twin/templates', { bodyLimit: 8 * 1024 * 1024 }, async (request) => {
    const { templates, answers } = request.body as { templates: WriteTemplates; answers: DoorAnswers };
    return ok(twin.load(templates, answers));
  });
  app.post('/twin/reset', async (request) => {
    const { events, keep } = request.body as { events: number; keep: number };
    return ok(await twin.reset(events, keep));
  });
  app.get('/twin/size', async () => ok({ events: twin.events }));
  app.post('/twin/matters', { schema: { body: CreateMatterBody } }, async (_request, reply) => reply.status(201).type('application/json').send(await twin.createOne()));
  app.post('/twin/matters/:id/advance', { schema: { params: MatterParams, body: AdvanceBody } }, async (request, reply) => {
    const answer = await twin.advanceOne((request.params as { id: string }).id);
    return answer === null ? reply.status(409).send(ok({ refused: 'no such Matter in the twin, or past its advances' })) : reply.type('application/json').send(answer);
  });
  app.addHook('onClose', async () => twin.close());
}

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.stderr.write(`bare-fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
