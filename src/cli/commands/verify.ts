/**
 * `legalwork verify --url <base>`: runs the published contract suite against a
 * running service. The suite runner lives in `src/cli/verify.ts`; it is
 * loaded only when this command runs, and parses its own arguments.
 */
import { EXIT, type ExitCode } from '../exit-codes.ts';

export const VERIFY_SUMMARY = 'Run the published contract suite (legalwork-contract@1) against a service.';

interface VerifyModule {
  verifyCommand(args: string[]): Promise<number>;
}

export async function runVerify(args: string[], stderr: NodeJS.WritableStream = process.stderr): Promise<ExitCode | number> {
  // A computed specifier: the runner is its own module, loaded on demand.
  const specifier = '../verify.ts';
  let module: VerifyModule;
  try {
    module = (await import(specifier)) as VerifyModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('verify.ts')) {
      stderr.write('legalwork verify: this build has no contract-suite runner (src/cli/verify.ts is missing)\n');
      return EXIT.usage;
    }
    throw error;
  }
  return module.verifyCommand(args);
}
