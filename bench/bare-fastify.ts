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
 * before the reply): what a durable write costs without the engine around it.
 *
 * Run as a child process by `bench/lib/service.ts`; prints
 * `bare-fastify listening on <url>` on stderr, like the service.
 */
import { createFastify } from '../src/http/app.ts';
import { ok } from '../src/http/envelopes.ts';
import { MatterParams } from '../src/http/schemas/common.ts';
import { AdvanceBody, CreateMatterBody } from '../src/http/schemas/matters.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import { stageEvent } from './lib/stage-event.ts';

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
}

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.stderr.write(`bare-fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
