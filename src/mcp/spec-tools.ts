/**
 * The six tools the specification names ("MCP server (stdio)"), exactly:
 * `healthz`, `get`, `list_matters`, `get_matter`, `advance_matter`,
 * `file_provisional`. Reads are marked `readOnlyHint: true`. A reserved act
 * never resolves in-band: advancing into one answers the Matter in
 * `waiting_on_signer` with the Gig that was posted. Every one of them acts
 * as the server's key (LEGALWORK_KEY): the top level lists and writes only
 * that key's records, and a keyless call is answered with the service's fix.
 */
import { z } from 'zod';
import { seg } from '../client/service-client.ts';
import { PROVISIONAL_OFFER } from '../domain/fixtures.ts';
import { SERVICE_PATH_PATTERN, servicePathProblem } from './service-path.ts';
import type { RegisterTool } from './register.ts';
import { MatterId, READ, WRITE } from './schemas.ts';

/** The mint an order placed through MCP names. */
export const MCP_MINT = 'legalwork-mcp';

export function registerSpecTools(tool: RegisterTool) {
  tool(
    'healthz',
    {
      title: 'Service liveness',
      description: 'GET /healthz: whether the legalwork service is up (typed liveness).',
      inputSchema: z.strictObject({}),
      hints: READ,
    },
    (_, calls) => calls.call<'/healthz', 'get'>('GET', '/healthz'),
  );

  tool(
    'get',
    {
      title: 'GET a path of the service',
      description: [
        'GET any path of the service and return its answer, e.g. /pricing, /catalog, /matters,',
        '/matters/{id}/journal, /workspaces/{id}/fixtures, /deadlines/{assetId}, /events?after=0.',
        'It acts as LEGALWORK_KEY: at the top level a list or tail (/matters, /assets, /events) shows',
        "that key's own records only, and without a key it answers EMPTY naming the fix (get a key with",
        'POST /keys or `legalwork keys create`). Reads by id and sandbox paths need no key.',
        'The path is relative to the service and starts with "/"; a scheme, a host, "//",',
        'a backslash or a "." / ".." segment is refused, so the key never leaves the service.',
      ].join(' '),
      inputSchema: z.strictObject({
        path: z
          .string()
          .regex(new RegExp(SERVICE_PATH_PATTERN), 'path must start with a single "/" and hold no whitespace, backslash or #')
          .superRefine((path, ctx) => {
            const problem = servicePathProblem(path);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .describe('a path of the service, starting with "/", optionally with a query'),
      }),
      hints: READ,
    },
    // The configured key goes along: the top level lists only the caller's
    // records, so a keyless read of /matters or /events would show nothing.
    ({ path }, calls) => calls.call('GET', path),
  );

  tool(
    'list_matters',
    {
      title: 'List Matters',
      description: 'GET /matters with LEGALWORK_KEY: the Matters that key opened (the top level lists a key\'s own records only), a typed EMPTY when there are none or no key is set (it names the fix), or BLOCKED.',
      inputSchema: z.strictObject({}),
      hints: READ,
    },
    (_, calls) => calls.call<'/matters', 'get'>('GET', '/matters'),
  );

  tool(
    'get_matter',
    {
      title: 'Read a Matter',
      description: 'GET /matters/{matterId}: the Matter (stage, status, pendingGigId while a Signer holds a reserved act), its Asset and its journal.',
      inputSchema: z.strictObject({ matterId: MatterId }),
      hints: READ,
    },
    ({ matterId }, calls) => calls.call<'/matters/{id}', 'get'>('GET', `/matters/${seg(matterId)}`),
  );

  tool(
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
      hints: WRITE,
    },
    ({ matterId }, calls) => calls.call<'/matters/{id}/advance', 'post'>('POST', `/matters/${seg(matterId)}/advance`, { body: {} }),
  );

  tool(
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
      hints: WRITE,
    },
    ({ title, inventor, listFeeUsd }, calls) => calls.call<'/orders', 'post'>('POST', '/orders', { body: { mint: MCP_MINT, offer: PROVISIONAL_OFFER, title, inventor, listFeeUsd } }),
  );
}
