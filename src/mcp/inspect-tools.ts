/**
 * `inspect_matter`: what a Matter may do now, and why not the rest, so an
 * agent asks instead of trying and being refused (issue 35, item 3). The
 * service's inspection (`GET /matters/{id}/inspection`), at the top level or
 * in a sandbox workspace, as of now or of an earlier fact.
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
}
