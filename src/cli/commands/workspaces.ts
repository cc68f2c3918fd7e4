/** `legalwork workspaces create|get`: keyless, TTL-bound sandbox grains. */
import type { Command } from '../command.ts';
import { seg } from '../../client/service-client.ts';

const create: Command = {
  path: ['workspaces', 'create'],
  summary: 'Open a sandbox workspace.',
  description: [
    'POST /workspaces. Keyless; answers the workspace with its TTL and graduation',
    'path. Pass its id as --workspace <id> to the other commands to rehearse there.',
  ].join('\n'),
  remote: true,
  async run(ctx) {
    return ctx.out.answer(await ctx.client().request<'/workspaces', 'post'>('POST', '/workspaces', { keyless: true }));
  },
};

const get: Command = {
  path: ['workspaces', 'get'],
  summary: 'Read a sandbox workspace: tier, TTL, counts.',
  description: 'GET /workspaces/{workspaceId}. An unknown or expired workspace is 404.',
  args: [{ name: 'workspaceId', description: 'the workspace id (ws_…)' }],
  remote: true,
  async run(ctx) {
    return ctx.out.answer(await ctx.client().request<'/workspaces/{workspaceId}', 'get'>('GET', `/workspaces/${seg(ctx.args.workspaceId)}`, { keyless: true }));
  },
};

export const workspaceCommands = [create, get];
