/**
 * The one way a tool is registered. Its title is also written as the
 * annotations' title (where clients of earlier protocol revisions read it),
 * its hints say whether it only reads, and its handler is given the service
 * calls of this tool, logged under its name: neither is retyped per tool.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ServiceClient } from '../client/service-client.ts';
import { caller, type Caller, type Log } from './call.ts';
import type { DESTROY, READ, WRITE } from './schemas.ts';

export interface ToolDeclaration<Input extends z.ZodObject> {
  title: string;
  description: string;
  inputSchema: Input;
  hints: typeof READ | typeof WRITE | typeof DESTROY;
}

export type RegisterTool = <Input extends z.ZodObject>(name: string, declaration: ToolDeclaration<Input>, handle: (input: z.output<Input>, calls: Caller) => Promise<CallToolResult>) => void;

export function toolRegistrar(server: McpServer, client: ServiceClient, log: Log): RegisterTool {
  return (name, { title, description, inputSchema, hints }, handle) => {
    const calls = caller(client, log, name);
    // The SDK's callback type cannot follow a generic schema; it parses the input against the schema before the call.
    const schema: z.ZodObject = inputSchema;
    server.registerTool(name, { title, description, inputSchema: schema, annotations: { title, ...hints } }, (input) => handle(input as z.output<typeof inputSchema>, calls));
  };
}
