/** `legalwork deadlines get|tick|ack`: an Asset's Deadline Ladder. */
import { optionalInt, requiredString, UsageError, type Command } from '../command.ts';
import { seg } from '../../client/service-client.ts';

const assetArg = [{ name: 'assetId', description: 'the Asset id (as_…) whose ladder it is' }];

const get: Command = {
  path: ['deadlines', 'get'],
  summary: "Read an Asset's Deadline Ladder.",
  description: 'GET /deadlines/{assetId}: days until the deadline, alarm, monitoring owner,\nwhether an acknowledgment is due today, occurrences and resolution.',
  args: assetArg,
  grain: true,
  remote: true,
  async run(ctx) {
    return ctx.out.answer(await ctx.client().request<'/deadlines/{assetId}', 'get'>('GET', `${ctx.prefix}/deadlines/${seg(ctx.args.assetId)}`));
  },
};

const tick: Command = {
  path: ['deadlines', 'tick'],
  writes: true,
  summary: 'Move a ladder forward by a number of days.',
  description: 'POST /deadlines/{assetId}/tick. Ladders move only on explicit ticks, never on\nwall time; rungs crossed fire their reminders onto the event tail.',
  args: assetArg,
  grain: true,
  remote: true,
  options: { days: { type: 'string', value: '<n>', description: 'how many days pass (required)' } },
  async run(ctx) {
    const days = optionalInt(ctx.values, 'days');
    if (days === undefined) throw new UsageError('--days is required');
    return ctx.out.answer(await ctx.client().request<'/deadlines/{assetId}/tick', 'post'>('POST', `${ctx.prefix}/deadlines/${seg(ctx.args.assetId)}/tick`, { body: { days } }));
  },
};

const ack: Command = {
  path: ['deadlines', 'ack'],
  writes: true,
  summary: "Acknowledge today's rung of a ladder in its final week.",
  description: 'POST /deadlines/{assetId}/ack. A named human acknowledges; refused 409 when no\nacknowledgment is due.',
  args: assetArg,
  grain: true,
  remote: true,
  options: { actor: { type: 'string', value: '<name>', description: 'who acknowledges (required)' } },
  async run(ctx) {
    const actor = requiredString(ctx.values, 'actor');
    return ctx.out.answer(await ctx.client().request<'/deadlines/{assetId}/ack', 'post'>('POST', `${ctx.prefix}/deadlines/${seg(ctx.args.assetId)}/ack`, { body: { actor } }));
  },
};

export const deadlineCommands = [get, tick, ack];
