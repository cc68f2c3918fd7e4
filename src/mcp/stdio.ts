/**
 * `legalwork mcp serve`: the MCP server on stdin/stdout. stdout carries
 * protocol frames and nothing else, so every log (this server's and any
 * stray console output of a dependency) goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ServiceClient } from '../client/service-client.ts';
import { createMcpServer } from './server.ts';

export async function serveStdio(client: ServiceClient): Promise<void> {
  const quiet = process.env.LEGALWORK_LOG === 'off';
  const log = (line: string) => {
    if (!quiet) process.stderr.write(`legalwork mcp: ${line}\n`);
  };
  // Keep stdout for frames: console output of any module goes to stderr.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = (...args: unknown[]) => console.error(...args);

  const server = createMcpServer(client, log);
  const transport = new StdioServerTransport(); // process.stdin and process.stdout
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  log(`serving over stdio; service at ${client.baseUrl}${client.key ? ' (with a key)' : ' (no key)'}`);
  // The client closing stdin ends the session.
  process.stdin.once('end', () => void server.close());
  await closed;
  log('stdin closed; bye');
}
