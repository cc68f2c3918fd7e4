/**
 * The keys' doors.
 *
 * - `POST /keys`: issues an API key by email. The only door that takes an
 *   HTML form body (application/x-www-form-urlencoded) as well as JSON, so a
 *   person can ask for a key from a plain form; the form parser is
 *   registered inside this plugin only, and every other door keeps answering
 *   415 to forms.
 * - `GET /keys/self`: the presenting key's state, expiry and last use, the
 *   key it succeeded, and its owner's ceiling and committed spend.
 * - `POST /keys/self/roll`: a successor that owns what the key owns, shown
 *   once; the key stays honoured until the expiry its holder chose.
 * - `POST /keys/self/revoke`: the key refused from now on.
 * The `/keys/self…` doors need the key they are about (`needsKey`).
 */
import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { issuedKeyOf, successorKeyOf, type KeyRecord, type KeyView } from '../../engine/keys.ts';
import { DEFAULT_ROLL_EXPIRY_SECONDS } from '../../domain/key-life.ts';
import { presentedSecret } from '../presented-key.ts';
import { refused } from '../declared-refusals.ts';
import { ok } from '../envelopes.ts';
import { optionalBody } from '../json-body.ts';
import { ref } from '../../schemas/components.ts';
import { IssueKeyBody, IssuedKey, KeySelf, RevokedKey, RollKeyBody, RolledKey } from '../../schemas/keys.ts';
import type { Services } from '../services.ts';

/**
 * What a roll's answer carries in place of the successor key until it
 * leaves (`revealSuccessor`): the answer an Idempotency-Key keeps is this
 * one, so the journal never holds the key. A real key is 43 random
 * characters: none is this.
 */
const SUCCESSOR_SHOWN_AS_IT_LEAVES = 'lwk_SUCCESSOR_KEY_SHOWN_ONCE_RETRY_WITH_OLD_KEY';

/**
 * The same for a key issued to a caller who presented one: the answer kept
 * holds `KEPT_ISSUED` and the salt the key was derived with, never the key;
 * a replay that cannot be shown the key answers `ISSUED_SHOWN_AS_IT_LEFT`.
 * Both are shaped as a key (the contract's pattern), as the roll's is.
 */
const ISSUED_SHOWN_AS_IT_LEFT = 'lwk_ISSUED_KEY_SHOWN_ONCE_RETRY_WITH_CALLER_KEY';
const KEPT_ISSUED = /lwk_KEY_SHOWN_ONCE_RETRY_([A-Za-z0-9_-]{22})/;
const keptIssued = (salt: string) => `lwk_KEY_SHOWN_ONCE_RETRY_${salt}`;

/**
 * The key in the answer of `POST /keys` sent with a key, as it leaves:
 * derived again from the presented key and the salt (`issuedKeyOf`), and
 * shown only when it is the key issued (a replay sent with another key of
 * the same owner answers `ISSUED_SHOWN_AS_IT_LEFT`).
 */
async function revealIssued(request: FastifyRequest, payload: unknown, keys: Services['keys']): Promise<unknown> {
  const salt = typeof payload === 'string' ? KEPT_ISSUED.exec(payload)?.[1] : undefined;
  if (!salt) return payload;
  const text = payload as string;
  const presented = presentedSecret(request);
  const keyId = /"keyId":"(key_[a-z0-9]+)"/.exec(text)?.[1];
  const issued = presented && keyId ? issuedKeyOf(presented, salt) : null;
  const shown = issued && (await keys.isKey(issued, keyId!)) ? issued : ISSUED_SHOWN_AS_IT_LEFT;
  return text.replace(KEPT_ISSUED, shown);
}

/** The successor in a roll's answer, as it leaves: derived again from the presenting key, so a replay of the roll shows it too. */
function revealSuccessor(request: FastifyRequest, payload: unknown): unknown {
  if (typeof payload !== 'string' || !payload.includes(SUCCESSOR_SHOWN_AS_IT_LEAVES)) return payload;
  const rolled = request.access.key?.life.rolled;
  const presented = presentedSecret(request);
  // Only the rolled key itself can derive its successor: a replay sent with another key answers without it.
  return rolled && presented ? payload.replace(SUCCESSOR_SHOWN_AS_IT_LEAVES, successorKeyOf(presented, rolled.secret)) : payload;
}

const ownerOf = (record: KeyRecord) => ({
  id: record.owner.id,
  email: record.owner.email,
  ...(record.owner.building !== undefined ? { building: record.owner.building } : {}),
  spendCeilingUsd: record.owner.spendCeilingUsd,
  committedUsd: record.owner.committedUsd,
});


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
      onSend: async (request, _reply, payload) => revealIssued(request, payload, services.keys),
    },
    async (request, reply) => {
      // Issued to a caller who sent a key: derived from it, and shown only as the answer leaves, so no kept answer holds it.
      const presentedKey = presentedSecret(request);
      const salt = randomBytes(16).toString('base64url');
      const { key: issued, record } = await services.keys.issue(request.body, presentedKey ? { presentedKey, salt } : undefined);
      const key = presentedKey ? keptIssued(salt) : issued;
      reply.header('cache-control', 'no-store');
      return reply.status(201).send(
        ok({
          key,
          shownOnce: true,
          keyId: record.id,
          tier: 'identified',
          email: record.owner.email,
          ...(record.owner.building !== undefined ? { building: record.owner.building } : {}),
          spendCeilingUsd: record.owner.spendCeilingUsd,
          issuedAt: record.issuedAt,
          use: { header: 'Authorization', scheme: 'Bearer', example: 'Authorization: Bearer <key>' },
          covers: 'the whole surface: one key for every top-level write; reads and sandbox grains need none',
          notice: 'the key is stored hashed and cannot be shown again; keep it now',
        }),
      );
    },
  );

  app.get(
    '/keys/self',
    {
      schema: {
        summary: 'The presenting key: its state, expiry and last use',
        description:
          'The key this request presents (Authorization: Bearer <key>): its state (active; rolled, still honoured until expiresAt; revoked and expired keys are refused before this answers), when it was last used (good to the hour), the key it was rolled into or from, and its owner: the first key\'s id (its records), the spend ceiling and the spend committed by every key rolled from it. Never the key itself.',
        tags: ['keys'],
        response: { 200: ref(KeySelf), 401: refused('no key, or one malformed, unknown, revoked or expired', ['KEY_REQUIRED']) },
      },
    },
    async (request, reply) => {
      const described = await services.keys.describe(request.access.key!);
      reply.header('cache-control', 'no-store');
      return ok({ key: described.key, ...(described.predecessor ? { predecessor: described.predecessor } : {}), owner: ownerOf(request.access.key!) });
    },
  );

  app.post(
    '/keys/self/roll',
    {
      schema: {
        summary: 'Roll the presenting key: a successor, shown once',
        description: `Issues a successor of the key this request presents, shown once in this answer and stored hashed. The successor owns what the key owns: its records, its spend ceiling and its committed spend. The rolled key stays honoured until expiresInSeconds from now (default ${DEFAULT_ROLL_EXPIRY_SECONDS}, at most 604800: 7 days; 0: refused at once), then every door refuses it 401 KEY_EXPIRED naming the successor. A key rolls once (409 KEY_ALREADY_ROLLED); roll the successor to roll again. A retry under the same Idempotency-Key, presenting the rolled key, is shown the same successor.`,
        tags: ['keys'],
        body: RollKeyBody,
        response: { 201: ref(RolledKey), 409: refused('the key was already rolled: the refusal names its successor', ['KEY_ALREADY_ROLLED']) },
      },
      preValidation: optionalBody,
      onSend: (request, _reply, payload, done) => done(null, revealSuccessor(request, payload)),
    },
    async (request, reply) => {
      const rolled = request.access.key!;
      const presented = presentedSecret(request)!;
      const { successor } = await services.keys.roll(presented, rolled, request.body.expiresInSeconds ?? DEFAULT_ROLL_EXPIRY_SECONDS);
      const described = await services.keys.describe(rolled);
      reply.header('cache-control', 'no-store');
      return reply.status(201).send(
        ok({
          key: SUCCESSOR_SHOWN_AS_IT_LEAVES,
          shownOnce: true,
          keyId: successor.id,
          tier: 'identified',
          issuedAt: successor.issuedAt,
          rolled: described.key,
          owner: { id: successor.owner.id, spendCeilingUsd: successor.owner.spendCeilingUsd, committedUsd: successor.owner.committedUsd },
          use: { header: 'Authorization', scheme: 'Bearer', example: 'Authorization: Bearer <key>' },
          notice: 'the key is stored hashed and cannot be shown again; keep it now, and move every client to it before the rolled key expires',
        }),
      );
    },
  );

  app.post(
    '/keys/self/revoke',
    {
      schema: {
        summary: 'Revoke the presenting key, at once',
        description:
          'Revokes the key this request presents: from the moment this answers, every door of every service process refuses it 401 KEY_REVOKED, and no write it sent that had not committed commits. Its records stay readable by id; a successor it was rolled into keeps them and its spend. A key with no successor leaves its records to no key: to keep them, roll the key first (POST /keys/self/roll, expiresInSeconds 0 ends it at once too).',
        tags: ['keys'],
        response: { 200: ref(RevokedKey) },
      },
    },
    async (request, reply) => {
      const key = request.access.key!;
      await services.keys.revoke(key);
      const described: { key: KeyView } = await services.keys.describe(key);
      reply.header('cache-control', 'no-store');
      return ok({ key: described.key, notice: 'this key is refused from now on, on every door and every process; its records stay readable by id, and its successor (if any) keeps them' });
    },
  );
}
