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
import { documented, EXAMPLE_IDS, MatterId, READ, WRITE } from './schemas.ts';

/** The mint an order placed through MCP names. */
export const MCP_MINT = 'legalwork-mcp';

export function registerSpecTools(tool: RegisterTool) {
  tool(
    'healthz',
    {
      title: 'Service liveness',
      description: [
        'GET /healthz: whether the legalwork service is up (typed liveness, type OK).',
        'Use it first in a session, and whenever another tool fails, to tell a service that is down from a refusal.',
        'A refusal here means the service is not serving: SERVICE_UNREACHABLE (nothing answers at LEGALWORK_URL: start it with `legalwork serve` or fix the address)',
        'or 503 SERVICE_DRAINING (it is restarting: call again in a moment).',
      ].join(' '),
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
        'Use it for any read no other tool covers: discovery (/llms.txt, /openapi.json), a Matter\'s journal, a ladder, the fixtures, the tail.',
        'Refusals come back as error results with a code and a fix: 404 ROUTE_NOT_FOUND (no such door: /openapi.json lists them), 404 MATTER_NOT_FOUND or ASSET_NOT_FOUND',
        '(no such id: the fix names the list to take one from), 422 INVALID_REQUEST (a query parameter off its schema: `field` names it, the fix says what to send).',
      ].join(' '),
      inputSchema: z.strictObject({
        path: z
          .string()
          .regex(new RegExp(SERVICE_PATH_PATTERN), 'path must start with a single "/" and hold no whitespace, backslash or #')
          .superRefine((path, ctx) => {
            const problem = servicePathProblem(path);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .meta({ description: 'a path of the service, starting with "/", optionally with a query', examples: ['/healthz', `/matters/${EXAMPLE_IDS.matter}/journal`, '/events?after=0&feed=reminders'] }),
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
      description: [
        'GET /matters with LEGALWORK_KEY: the Matters that key opened (the top level lists a key\'s own records only), a typed EMPTY when there are none or no key is set (it names the fix), or BLOCKED.',
        'Use it to find the id of a Matter this key opened before get_matter or advance_matter.',
        'Refused 401 KEY_UNKNOWN or KEY_MALFORMED: LEGALWORK_KEY is not a key this service issued; a person issues one (POST /keys) and restarts this server with it.',
      ].join(' '),
      inputSchema: z.strictObject({}),
      hints: READ,
    },
    (_, calls) => calls.call<'/matters', 'get'>('GET', '/matters'),
  );

  tool(
    'get_matter',
    {
      title: 'Read a Matter',
      description: [
        'GET /matters/{matterId}: the Matter (stage, status, pendingGigId while a Signer holds a reserved act), its Asset and its journal.',
        'Use it to see where a Matter stands before advancing it, and to poll one that is waiting_on_signer until a Signer answers.',
        'Refused 404 MATTER_NOT_FOUND: no Matter has that id here (list_matters lists this key\'s ids).',
      ].join(' '),
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
        'escalated{reservedAct, gigId}.',
        'Use it to move a Matter on once get_matter shows it open (not waiting_on_signer, not terminal); rehearse with sandbox_advance_matter.',
        'Refusals come back as error results with a fix: 409 MATTER_WAITING_ON_SIGNER (a Signer holds the reserved act: poll get_matter until it moves),',
        '409 MATTER_TERMINAL (a terminal is forever: open a new Matter), 409 MATTER_NEEDS_CLIENT_DIRECTION (a Declination stopped it until the Client speaks),',
        '422 GATE_CONSENT, GATE_MERITS or GATE_MECHANICS (the Gate names the rule in `rule`), 404 MATTER_NOT_FOUND (not a Matter of this key).',
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
        'Use it to order a real US provisional filing for an inventor who is the Client, after rehearsing the loop with the sandbox_* tools.',
        'Refusals come back as error results with a fix: 401 KEY_REQUIRED (no LEGALWORK_KEY: a person issues one with POST /keys),',
        '403 SPEND_CEILING (the act would pass the key\'s spendCeilingUsd: nothing was written), 422 GATE_MECHANICS (listFeeUsd past a Tenant Guardrail).',
      ].join(' '),
      inputSchema: z.strictObject({
        title: documented(z.string().min(1).max(500), 'the invention title, as the application will carry it', ['Self-folding map']),
        inventor: documented(z.string().min(1).max(200), 'the inventor\'s name; the inventor is the Client', ['Ada Lovelace']),
        listFeeUsd: documented(z.number().nonnegative(), 'the list fee, in USD (the posted provisional filing price is 199)', [199]),
      }),
      hints: WRITE,
    },
    ({ title, inventor, listFeeUsd }, calls) => calls.call<'/orders', 'post'>('POST', '/orders', { body: { mint: MCP_MINT, offer: PROVISIONAL_OFFER, title, inventor, listFeeUsd } }),
  );
}
