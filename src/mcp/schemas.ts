/**
 * Input pieces shared by the tools. The tools declare no `outputSchema`: an
 * SDK client checks `structuredContent` against it even on an error result,
 * and a refusal must carry its worded body as `structuredContent` too, so a
 * declared success shape would turn every refusal into a protocol error.
 */
import { z } from 'zod';
import { ID_PATTERN } from '../domain/ids.ts';

export const anId = (description: string) => z.string().regex(ID_PATTERN, 'an id is 1-64 letters, digits, _ . : or -').describe(description);

export const MatterId = anId('the Matter id (mt_…)');
export const WorkspaceId = anId('the sandbox workspace id (ws_…), from sandbox_open_workspace');
