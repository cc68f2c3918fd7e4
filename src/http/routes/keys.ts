/**
 * `POST /keys`: issues an API key by email. The only door that takes an HTML
 * form body (application/x-www-form-urlencoded) as well as JSON, so a person
 * can ask for a key from a plain form; the form parser is registered inside
 * this plugin only, and every other door keeps answering 415 to forms.
 */
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../envelopes.ts';
import { Money, Strict, Text } from '../schemas/common.ts';
import { IssuedKey, ref } from '../schemas/components.ts';
import type { Services } from '../services.ts';

const IssueKeyBody = Strict(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'the email the key is issued to' }),
    building: Type.Optional(Text(200)),
    spendCeilingUsd: Type.Optional({ ...Money, description: 'a hard ceiling on the posted prices of paid acts taken with this key; absent means none' }),
  },
  { description: 'form fields or JSON: email, optional building and spendCeilingUsd', examples: [{ email: 'agent@example.com', building: 'a patent filing agent' }] },
);

const NUMBER = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A form carries text only: a numeric ceiling arrives as "250", and an
 * optional field left empty arrives as "". Normalize those two cases and
 * nothing else, so the strict schema still refuses everything malformed.
 */
async function normalizeForm(request: FastifyRequest) {
  if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return;
  // A preValidation hook sees the form as parsed, before the schema has checked it.
  const body: unknown = request.body;
  if (!body || typeof body !== 'object') return;
  const out: Record<string, unknown> = { ...body };
  for (const field of ['building', 'spendCeilingUsd']) if (out[field] === '') delete out[field];
  if (typeof out.spendCeilingUsd === 'string' && NUMBER.test(out.spendCeilingUsd)) out.spendCeilingUsd = Number(out.spendCeilingUsd);
  request.body = out;
}

export async function keyRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  await fastify.register(formbody, { bodyLimit: 4096 });
  // The handler reads its body typed from the route's TypeBox schema.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/keys',
    {
      config: { keyless: 'the key door itself' },
      schema: {
        summary: 'Issue an API key (shown once, stored hashed)',
        description: 'Issues a key bound to the email given (JSON or a form). The key is shown once and stored hashed; one key covers every top-level write, and the records it creates are its own. An optional spend ceiling is hard: a paid act past it is BLOCKED.',
        tags: ['keys'],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: IssueKeyBody,
        response: { 201: ref(IssuedKey) },
      },
      preValidation: normalizeForm,
    },
    async (request, reply) => {
      const { key, record } = await services.keys.issue(request.body);
      reply.header('cache-control', 'no-store');
      return reply.status(201).send(
        ok({
          key,
          shownOnce: true,
          keyId: record.id,
          tier: 'identified',
          email: record.email,
          ...(record.building !== undefined ? { building: record.building } : {}),
          spendCeilingUsd: record.spendCeilingUsd,
          issuedAt: record.issuedAt,
          use: { header: 'Authorization', scheme: 'Bearer', example: 'Authorization: Bearer <key>' },
          covers: 'the whole surface: one key for every top-level write; reads and sandbox grains need none',
          notice: 'the key is stored hashed and cannot be shown again; keep it now',
        }),
      );
    },
  );
}
