/**
 * The legalwork MCP server: the specification's six tools, `inspect_matter`
 * (what a Matter may do now, and why not the rest), the server's own key
 * (`key_self`, `roll_key`, `revoke_key`) and the sandbox rehearsal tools,
 * each a thin call to a running legalwork service. The server holds no state
 * of its own; the service is the truth.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServiceClient } from '../client/service-client.ts';
import type { Log } from './call.ts';
import { registerInspectTools } from './inspect-tools.ts';
import { registerKeyTools } from './key-tools.ts';
import { toolRegistrar } from './register.ts';
import { registerSandboxTools } from './sandbox-tools.ts';
import { registerSpecTools } from './spec-tools.ts';
import { PACKAGE_ROOT } from '../paths.ts';

const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

export { SPEC_TOOLS } from './tool-names.ts';

export function createMcpServer(client: ServiceClient, log: Log = () => {}): McpServer {
  const server = new McpServer(
    { name: 'legalwork', version },
    {
      capabilities: { tools: {} },
      instructions: [
        `Tools over the legalwork service at ${client.baseUrl}: open, advance and settle legal work.`,
        'The tools act as the key this server was given (LEGALWORK_KEY): at the top level, list_matters and get of /matters, /assets or /events show only that key\'s own records, and writes need it. Reads by id and the sandbox_* tools need no key.',
        // Said up front when missing, so an agent asks for a key before it reads an empty list as "no Matters".
        ...(client.key ? [] : ['No key is set: top-level lists answer EMPTY and top-level writes are refused, each naming the fix; a person issues a key with POST /keys (form field email) or `legalwork keys create --email <address>` and restarts this server with LEGALWORK_KEY.']),
        'A reserved act (sign, file) is never performed in-band: advancing into one answers waiting_on_signer.',
        'Before acting on a Matter, inspect_matter says which commands it accepts now (with the body to send) and the refusal each other one would get: ask it instead of trying.',
        'Refusals of the service come back as error results carrying its worded reason.',
        'Rehearse first in a sandbox: sandbox_open_workspace, then the sandbox_* tools with its workspaceId.',
      ].join(' '),
    },
  );
  const tool = toolRegistrar(server, client, log);
  registerSpecTools(tool);
  registerInspectTools(tool);
  registerKeyTools(tool);
  registerSandboxTools(tool);
  return server;
}
