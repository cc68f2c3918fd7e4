/** `legalwork mcp serve`: the stdio MCP server over a running service. */
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { DEFAULT_BASE_URL } from '../../client/service-client.ts';

const serve: Command = {
  path: ['mcp', 'serve'],
  summary: 'Run the stdio MCP server (the demand loop as MCP tools).',
  description: [
    'Speaks MCP over stdin/stdout to one client; every tool calls the service at',
    `--url (else LEGALWORK_URL, else ${DEFAULT_BASE_URL}), sending LEGALWORK_KEY`,
    'as Authorization: Bearer when set. Nothing but protocol frames is written to',
    'stdout; logs go to stderr. It exits when the client closes stdin.',
  ].join('\n'),
  remote: true,
  async run(ctx) {
    const client = ctx.client();
    const { serveStdio } = await import('../../mcp/stdio.ts');
    await serveStdio(client);
    return EXIT.ok;
  },
};

export const mcpCommands = [serve];
