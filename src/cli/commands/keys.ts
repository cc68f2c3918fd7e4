/** `legalwork keys create`: provision an API key by email. */
import { optionalNumber, optionalString, requiredString, type Command } from '../command.ts';

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

export const keyCommands = [create];
