/**
 * End to end: `node bin/legalwork.js mcp serve` as a real child process,
 * driven over stdio by the official SDK client, against a running service.
 * stdout must carry protocol frames only: any stray byte there would break
 * the client's framing, which the test would see as an error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { BIN, childEnv, ROOT } from './helpers/cli.ts';

let app: TestApp;
let url: string;

beforeAll(async () => {
  ({ app, url } = await listeningApp());
});

afterAll(async () => {
  await app.close();
});

it('serves the tools over stdio to the SDK client, logging only on stderr', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve'],
    cwd: ROOT,
    env: childEnv({ LEGALWORK_URL: url }) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const errors: Error[] = [];
  const client = new Client({ name: 'legalwork-e2e', version: '1.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  try {
    expect(client.getServerVersion()?.name).toBe('legalwork');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['healthz', 'get', 'list_matters', 'get_matter', 'advance_matter', 'file_provisional']));

    const ws = (await client.callTool({ name: 'sandbox_open_workspace', arguments: {} })) as CallToolResult;
    const workspaceId = (ws.structuredContent as { workspace: { id: string } }).workspace.id;
    const created = (await client.callTool({ name: 'sandbox_create_matter', arguments: { workspaceId, matterType: 'contract_review' } })) as CallToolResult;
    const matterId = (created.structuredContent as { matter: { id: string } }).matter.id;
    const read = (await client.callTool({ name: 'get', arguments: { path: `/workspaces/${workspaceId}/matters/${matterId}` } })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    expect((read.structuredContent as { matter: { stage: string } }).matter.stage).toBe('intake');
    expect(JSON.parse((read.content as { text: string }[])[0].text)).toEqual(read.structuredContent);

    // A refusal travels as a tool result, not a protocol error.
    const refused = (await client.callTool({ name: 'get_matter', arguments: { matterId: 'mt_absent' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { httpStatus: number }).httpStatus).toBe(404);
  } finally {
    await client.close();
  }
  expect(errors).toEqual([]);
  // The server logged its calls, on stderr.
  expect(stderr).toContain('serving over stdio');
  expect(stderr).toMatch(/get_matter: GET \/matters\/mt_absent -> 404/);
});
