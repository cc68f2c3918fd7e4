/**
 * Input pieces and annotations shared by the tools. The tools declare no
 * `outputSchema`: an SDK client checks `structuredContent` against it even on
 * an error result, and a refusal must carry its worded body as
 * `structuredContent` too, so a declared success shape would turn every
 * refusal into a protocol error.
 */
import { z } from 'zod';
import { ID_PATTERN } from '../domain/ids.ts';

/** A tool that only reads: safe to repeat, and it acts on the service alone. */
export const READ = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
/** A tool that writes without destroying: each call is a new act on the service alone. */
export const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

export const anId = (description: string) => z.string().regex(ID_PATTERN, 'an id is 1-64 letters, digits, _ . : or -').describe(description);

export const MatterId = anId('the Matter id (mt_…)');
export const WorkspaceId = anId('the sandbox workspace id (ws_…), from sandbox_open_workspace');
