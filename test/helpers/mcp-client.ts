/**
 * An MCP client of the official SDK talking to the service's MCP server in
 * this process (an in-memory transport pair), the server reaching the
 * service at `baseUrl` with `key` (none: keyless). The tests that drive the
 * MCP tools share it; each closes what it opened.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ServiceClient } from '../../src/client/service-client.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { HANG_MS } from './wait.ts';

export async function mcpClient(baseUrl: string, key?: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(new ServiceClient({ baseUrl, ...(key ? { key } : {}), timeoutMs: HANG_MS })).connect(serverSide);
  const client = new Client({ name: 'legalwork-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
