/**
 * `legalwork verify --url <base>`: runs the published contract suite against a
 * running service. The runner (`src/cli/verify.ts`) parses its own arguments;
 * it is loaded only when this command runs, so no other command pays for it.
 */
import type { Streams } from '../output.ts';

export const VERIFY_SUMMARY = 'Run the published contract suite (legalwork-contract@1) against a service.';

export async function runVerify(args: string[], env: NodeJS.ProcessEnv, streams: Streams): Promise<number> {
  const { verifyCommand } = await import('../verify.ts');
  return verifyCommand(args, streams, env);
}
