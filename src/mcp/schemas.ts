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
/** A tool that ends something for good (a key revoked): a client may ask its person first. */
export const DESTROY = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;

/**
 * An input property as an agent reads it in `tools/list`: what it is and
 * values it takes, written once, last (after `.optional()` or `.default()`),
 * so the JSON Schema the SDK sends carries both `description` and `examples`.
 */
export const documented = <T extends z.ZodType>(schema: T, description: string, examples: readonly unknown[]): T => schema.meta({ description, examples: [...examples] }) as T;

/** Example ids, in the shape the service issues (`<kind>_` and 25 base-36 characters). */
export const EXAMPLE_IDS = {
  matter: 'mt_0na9u0i1si6waa7uun64pgjqw',
  asset: 'as_136a8ooj0791kg6kueyc1xzow',
  workspace: 'ws_abor492zqoye7qchz8enhp24y',
  gig: 'gig_0n8x2k4q7w1e5r9t3y6u2i0op',
} as const;

const idSchema = () => z.string().regex(ID_PATTERN, 'an id is 1-64 letters, digits, _ . : or -');
export const anId = (description: string, example: string) => documented(idSchema(), description, [example]);

export const MatterId = anId('the Matter id (mt_…), as get_matter, list_matters or the tool that opened it answer it', EXAMPLE_IDS.matter);
export const WorkspaceId = anId('the sandbox workspace id (ws_…), from sandbox_open_workspace', EXAMPLE_IDS.workspace);
