/**
 * `inspect_matter`: what a Matter may do now, and why not the rest, so an
 * agent asks instead of trying and being refused (issue 35, item 3). The
 * service's inspection (`GET /matters/{id}/inspection`), at the top level or
 * in a sandbox workspace, as of now or of an earlier fact.
 *
 * `where_matters_gather`: the same look at a whole grain (issue 36, item 4):
 * how many of its Matters (or Deadline Ladders, or a firm's Enrollments)
 * stand in each state, the oldest there, how often each transition was
 * taken (`GET …/inspection/matters`), or one state's records, oldest first.
 */
import { z } from 'zod';
import { grainPrefix, seg } from '../client/service-client.ts';
import type { RegisterTool } from './register.ts';
import { anId, documented, EXAMPLE_IDS, MatterId, READ } from './schemas.ts';

export function registerInspectTools(tool: RegisterTool) {
  tool(
    'inspect_matter',
    {
      title: 'What a Matter may do now',
      description: [
        'GET /matters/{matterId}/inspection (in a sandbox workspace, /workspaces/{workspaceId}/matters/{matterId}/inspection): the Matter on its machine.',
        '`open` lists every command it accepts now, each with its method, `href` (the path to send to) and a `body` to send;',
        '`refused` lists every other command with the refusal it would get (status, code, error, fix), decided by the same code that decides real commands;',
        '`state` is where it stands, `path` every fact so far (the event, the states before and after, who acted, the Gig and Signer).',
        'Pass `at` (a seq of its journal) to see it as it was then.',
        'Use it before acting on a Matter, instead of trying a command and being refused, and to learn why a Matter waits (a Signer, the Client\'s direction) and what moves it on.',
        'Refusals come back as error results with a fix: 404 MATTER_NOT_FOUND (no Matter with that id here: at the top level any key\'s Matter reads by id, a sandbox Matter only with its workspaceId),',
        '404 WORKSPACE_NOT_FOUND (unknown or expired workspace), 422 INSPECTION_BEFORE_OPENING (`at` is before the Matter opened: the error names its seqs).',
      ].join(' '),
      inputSchema: z.strictObject({
        matterId: MatterId,
        workspaceId: documented(anId('the sandbox workspace the Matter lives in (ws_…); leave it out for a top-level Matter', EXAMPLE_IDS.workspace).optional(), 'the sandbox workspace the Matter lives in (ws_…); leave it out for a top-level Matter', [EXAMPLE_IDS.workspace]),
        at: documented(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(), 'a seq of the Matter\'s journal (its `path` or GET /matters/{id}/journal): the answer as of its last fact at or before it; leave it out for now', [12]),
      }),
      hints: READ,
    },
    ({ matterId, workspaceId, at }, calls) => calls.call('GET', `${grainPrefix(workspaceId)}/matters/${seg(matterId)}/inspection`, { query: { at } }),
  );

  tool(
    'where_matters_gather',
    {
      title: 'Where a grain\'s Matters gather',
      description: [
        'GET /inspection/matters (in a sandbox workspace, /workspaces/{workspaceId}/inspection/matters): the grain\'s Matters on the Matter machine.',
        '`population.states` has every state (a dotted path) with how many Matters are in it and the `oldest` there (its id, since when, ageSeconds, links to its inspection);',
        '`population.transitions` every edge with how many times Matters took it. `of: "deadlines"` counts the Deadline Ladders (with `facets`: notice, vacant, recurring), `of: "enrollments"` a firm\'s Enrollments (with firmId).',
        'With `state`, the records in that state instead, oldest first, a page at a time (`after`: the nextAfter of the page before).',
        'At the top level it counts LEGALWORK_KEY\'s own Matters only; without a key it answers EMPTY naming the fix.',
        'Use it to find what is stuck (waiting on a Signer or on the Client\'s direction longest) before inspecting one with inspect_matter.',
        'Refusals come back as error results with a fix: 422 INVALID_REQUEST (a state the machine does not have: the fix names them), 404 WORKSPACE_NOT_FOUND or FIRM_NOT_FOUND (unknown or expired grain).',
      ].join(' '),
      inputSchema: z.strictObject({
        of: documented(z.enum(['matters', 'deadlines', 'enrollments']).optional(), 'which records: matters (the default), deadlines (Deadline Ladders) or enrollments (a firm\'s, with firmId)', ['matters']),
        workspaceId: documented(anId('the sandbox workspace to count (ws_…); leave it out for the top level (your key\'s)', EXAMPLE_IDS.workspace).optional(), 'the sandbox workspace to count (ws_…); leave it out for the top level (your key\'s)', [EXAMPLE_IDS.workspace]),
        firmId: documented(anId('the sandbox firm whose Enrollments to count (fm_…), with of: enrollments', 'fm_5d8f2g6h1j9k3l7z4x0c2v6b8').optional(), 'the sandbox firm whose Enrollments to count (fm_…), with of: enrollments', ['fm_5d8f2g6h1j9k3l7z4x0c2v6b8']),
        state: documented(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/).optional(), 'a state of the machine, as a dotted path: list the records in it, oldest first', ['open.waiting_on_signer']),
        after: documented(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(), 'with state: the nextAfter of the page before', [0]),
        limit: documented(z.number().int().min(1).max(500).optional(), 'with state: at most this many records (default 100)', [100]),
      }).refine((i) => (i.of === 'enrollments') === (i.firmId !== undefined), { message: 'of: enrollments counts a firm\'s Enrollments: give firmId (and only then)' })
        .refine((i) => i.firmId === undefined || i.workspaceId === undefined, { message: 'firmId and workspaceId name two grains: give one' }),
      hints: READ,
    },
    ({ of = 'matters', workspaceId, firmId, state, after, limit }, calls) => {
      const base = `${firmId !== undefined ? `/firms/${seg(firmId)}` : grainPrefix(workspaceId)}/inspection/${of}`;
      return state === undefined ? calls.call('GET', base) : calls.call('GET', `${base}/states/${seg(state)}`, { query: { after, limit } });
    },
  );
}
