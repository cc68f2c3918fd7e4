/**
 * `legalwork keys …`: provision an API key by email (`create`), and, as the
 * key in LEGALWORK_KEY, read its state (`self`), roll it (`roll`) or revoke
 * it (`revoke`).
 */
import { optionalInt, optionalNumber, optionalString, requiredString, UsageError, type Command } from '../command.ts';

const create: Command = {
  path: ['keys', 'create'],
  summary: 'Provision an API key by email.',
  description: [
    'POST /keys with the form field email (and optionally building and',
    'spendCeilingUsd). The key is shown once, in this answer, and stored hashed:',
    'keep it, then export LEGALWORK_KEY=<key>. One key covers the whole surface;',
    'the spend ceiling is hard.',
  ].join('\n'),
  remote: true,
  options: {
    email: { type: 'string', value: '<address>', description: 'whom the key is issued to (required)' },
    building: { type: 'string', value: '<text>', description: 'what you are building with it' },
    'spend-ceiling': { type: 'string', value: '<usd>', description: 'a hard ceiling on paid acts, in USD' },
  },
  async run(ctx) {
    const form = {
      email: requiredString(ctx.values, 'email'),
      building: optionalString(ctx.values, 'building'),
      spendCeilingUsd: optionalNumber(ctx.values, 'spend-ceiling'),
    };
    return ctx.out.answer(await ctx.client().request<'/keys', 'post'>('POST', '/keys', { form, keyless: true }));
  },
};

/** The `/keys/self…` doors act on the key the command presents: without one there is nothing to act on. */
function needKey(ctx: Parameters<Command['run']>[0]): void {
  if (!ctx.client().key) throw new UsageError('set LEGALWORK_KEY to the key to act on (this command acts on the key it presents)');
}

const self: Command = {
  path: ['keys', 'self'],
  summary: "The key in LEGALWORK_KEY: its state, expiry, last use, and its owner's spend.",
  description: [
    'GET /keys/self: the key LEGALWORK_KEY holds: its state (active, or rolled and honoured until',
    'expiresAt), when it was last used (good to the hour), the key it was rolled into or from (with',
    "that key's state and last use: is the old key still sent?), and its owner's spend ceiling and",
    'committed spend. A revoked or expired key is refused 401, naming its successor.',
  ].join('\n'),
  remote: true,
  async run(ctx) {
    needKey(ctx);
    return ctx.out.answer(await ctx.client().request<'/keys/self', 'get'>('GET', '/keys/self'));
  },
};

const roll: Command = {
  path: ['keys', 'roll'],
  summary: 'Roll the key in LEGALWORK_KEY: print its successor, shown once.',
  description: [
    'POST /keys/self/roll: issues a successor that owns what the key owns (its records, its spend',
    'ceiling and its committed spend), shown once in this answer: export LEGALWORK_KEY=<key> with it.',
    'The rolled key stays honoured for --expires-in seconds (default 86400, a day; at most 604800,',
    '7 days; 0 refuses it at once), then every door refuses it 401 KEY_EXPIRED. A key rolls once;',
    'roll the successor to roll again. Run it again with the same --idempotency-key (and the same',
    'LEGALWORK_KEY) to be shown the same successor after a lost answer.',
  ].join('\n'),
  remote: true,
  writes: true,
  options: {
    'expires-in': { type: 'string', value: '<seconds>', description: 'how long the rolled key stays honoured: 0 to 604800 (default 86400)' },
  },
  async run(ctx) {
    needKey(ctx);
    const expiresInSeconds = optionalInt(ctx.values, 'expires-in', { min: 0 });
    const answer = await ctx.client().request<'/keys/self/roll', 'post'>('POST', '/keys/self/roll', { body: expiresInSeconds === undefined ? {} : { expiresInSeconds } });
    const code = ctx.out.answer(answer);
    if (answer.ok) ctx.out.progress(`the successor ${answer.body.keyId} is shown once, above: export LEGALWORK_KEY=<its key>; ${answer.body.rolled.id} is honoured until ${answer.body.rolled.expiresAt}`);
    return code;
  },
};

const revoke: Command = {
  path: ['keys', 'revoke'],
  summary: 'Revoke the key in LEGALWORK_KEY, at once.',
  description: [
    'POST /keys/self/revoke: from its answer on, every door of every service process refuses the',
    'key 401 KEY_REVOKED. Its records stay readable by id, and a successor it was rolled into keeps',
    'them; a key with no successor leaves them to no key (roll first, with --expires-in 0, to keep',
    'them). It cannot be undone, so it asks for --yes.',
  ].join('\n'),
  remote: true,
  writes: true,
  options: {
    yes: { type: 'boolean', description: 'revoke it: the key is refused from now on, and this cannot be undone' },
  },
  async run(ctx) {
    needKey(ctx);
    if (ctx.values.yes !== true) throw new UsageError('revoking a key is at once and cannot be undone: pass --yes to revoke it');
    const answer = await ctx.client().request<'/keys/self/revoke', 'post'>('POST', '/keys/self/revoke');
    return ctx.out.answer(answer);
  },
};

export const keyCommands = [create, self, roll, revoke];
