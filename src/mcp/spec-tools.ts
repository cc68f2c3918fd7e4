/**
 * The six tools the specification names ("MCP server (stdio)"), exactly:
 * `healthz`, `get`, `list_matters`, `get_matter`, `advance_matter`,
 * `file_provisional`. Reads are marked `readOnlyHint: true`. A reserved act
 * never resolves in-band: advancing into one answers the Matter in
 * `waiting_on_signer` with the Gig that was posted.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { seg } from '../cli/service-client.ts';
import { PROVISIONAL_OFFER } from '../domain/fixtures.ts';
import type { Caller } from './call.ts';
import { KEYLESS_PATH_PATTERN, keylessPathProblem } from './keyless-path.ts';
import { MatterId, READ, WRITE } from './schemas.ts';

/** The mint an order placed through MCP names. */
export const MCP_MINT = 'legalwork-mcp';

export function registerSpecTools(server: McpServer, caller: Caller) {
  server.registerTool(
    'healthz',
    {
      title: 'Service liveness',
      description: 'GET /healthz: whether the legalwork service is up (typed liveness).',
      inputSchema: z.strictObject({}),
      annotations: { title: 'Service liveness', ...READ },
    },
    () => caller.call('healthz', 'GET', '/healthz'),
  );

  server.registerTool(
    'get',
    {
      title: 'GET a keyless path',
      description: [
        'GET any keyless path of the service and return its answer, e.g. /pricing, /catalog,',
        '/matters/{id}/journal, /workspaces/{id}/fixtures, /deadlines/{assetId}, /events?after=0.',
        'The path is relative to the service and starts with "/"; a scheme, a host, "//",',
        'a backslash or a "." / ".." segment is refused. No key is sent.',
      ].join(' '),
      inputSchema: z.strictObject({
        path: z
          .string()
          .regex(new RegExp(KEYLESS_PATH_PATTERN), 'path must start with a single "/" and hold no whitespace, backslash or #')
          .superRefine((path, ctx) => {
            const problem = keylessPathProblem(path);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .describe('a path of the service, starting with "/", optionally with a query'),
      }),
      annotations: { title: 'GET a keyless path', ...READ },
    },
    ({ path }) => caller.call('get', 'GET', path, { keyless: true }),
  );

  server.registerTool(
    'list_matters',
    {
      title: 'List Matters',
      description: 'GET /matters: the OK envelope with the Matters, a typed EMPTY when there are none, or BLOCKED.',
      inputSchema: z.strictObject({}),
      annotations: { title: 'List Matters', ...READ },
    },
    () => caller.call('list_matters', 'GET', '/matters'),
  );

  server.registerTool(
    'get_matter',
    {
      title: 'Read a Matter',
      description: 'GET /matters/{matterId}: the Matter (stage, status, pendingGigId while a Signer holds a reserved act), its Asset and its journal.',
      inputSchema: z.strictObject({ matterId: MatterId }),
      annotations: { title: 'Read a Matter', ...READ },
    },
    ({ matterId }) => caller.call('get_matter', 'GET', `/matters/${seg(matterId)}`),
  );

  server.registerTool(
    'advance_matter',
    {
      title: 'Advance a Matter',
      description: [
        'POST /matters/{matterId}/advance: moves the Matter one Stage Verb on. Open work commits',
        '(committed{advanceTo, by}); a reserved act (sign, file) is never performed here: a Gig is',
        'posted to the supply network and the Matter answers status waiting_on_signer with',
        'escalated{reservedAct, gigId}. Refusals (409 waiting or terminal, 422 Gate) come back as errors.',
      ].join(' '),
      inputSchema: z.strictObject({ matterId: MatterId }),
      annotations: { title: 'Advance a Matter', ...WRITE },
    },
    ({ matterId }) => caller.call('advance_matter', 'POST', `/matters/${seg(matterId)}/advance`, { body: {} }),
  );

  server.registerTool(
    'file_provisional',
    {
      title: 'Order a provisional patent filing',
      description: [
        `POST /orders (mint ${MCP_MINT}, offer ${PROVISIONAL_OFFER}): mints a patent-rail provisional Matter`,
        'and advances it until it waits on a Signer. The filing is a reserved act and never resolves',
        'in-band: the answer is status waiting_on_signer. Needs LEGALWORK_KEY on the top level.',
      ].join(' '),
      inputSchema: z.strictObject({
        title: z.string().min(1).max(500).describe('the invention title'),
        inventor: z.string().min(1).max(200).describe('the inventor, who is the Client'),
        listFeeUsd: z.number().nonnegative().describe('the list fee, in USD'),
      }),
      annotations: { title: 'Order a provisional patent filing', ...WRITE },
    },
    ({ title, inventor, listFeeUsd }) => caller.call('file_provisional', 'POST', '/orders', { body: { mint: MCP_MINT, offer: PROVISIONAL_OFFER, title, inventor, listFeeUsd } }),
  );
}
