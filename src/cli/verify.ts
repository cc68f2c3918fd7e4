/**
 * `legalwork verify --url <base>`: runs the contract suite a service
 * publishes against that service and prints, row by row, what holds.
 *
 *   --url <base>   the service (default $LEGALWORK_URL, else http://127.0.0.1:3000)
 *   --pin <hex>    require the published suite to have this pin (sha256)
 *   --json         print the full run as JSON instead of lines
 *
 * Exit 0 when every row holds and the page prints the pin; 1 when any does
 * not (or the pin differs); 2 on a bad command line; 3 when the service
 * cannot be reached.
 */
import { parseArgs } from 'node:util';
import { runSuite, type SuiteRun } from '../verify/run-suite.ts';
import { SUITE_ID, SUITE_PIN } from '../verify/suite.ts';
import { EXIT } from './exit-codes.ts';
import type { Streams } from './output.ts';
import { DEFAULT_BASE_URL, ServiceUnreachable } from '../client/service-client.ts';
import { SHA256_HEX } from '../domain/hash.ts';

const USAGE = 'usage: legalwork verify [--url <base>] [--pin <sha256>] [--json]\n';

function render(run: SuiteRun, requiredPin: string | undefined): string {
  const lines = [`${run.suite.id} at ${run.baseUrl}`, `pin ${run.suite.pin}${run.suite.pin === SUITE_PIN && run.suite.id === SUITE_ID ? ' (the suite this CLI knows)' : ' (differs from the suite this CLI knows)'}`];
  lines.push(`${run.pagePinned ? 'holds' : 'FAILS'}  GET /verify names ${run.suite.id} and prints the pin`);
  if (requiredPin) lines.push(`${requiredPin === run.suite.pin ? 'holds' : 'FAILS'}  the published pin is ${requiredPin}`);
  for (const r of run.results) {
    lines.push(`${r.ok ? 'holds' : 'FAILS'}  ${r.id}: ${r.method} ${r.path} -> ${r.status ?? 'no answer'}`);
    for (const p of r.problems) lines.push(`         ${p}`);
  }
  lines.push(`${run.passed} of ${run.results.length} requirements hold${run.failed ? `; ${run.failed} fail` : ''}`);
  return `${lines.join('\n')}\n`;
}

export async function verifyCommand(args: string[], streams: Streams = { stdout: process.stdout, stderr: process.stderr }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { url?: string; pin?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args, options: { url: { type: 'string' }, pin: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    streams.stderr.write(`legalwork verify: ${(error as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.help) {
    streams.stdout.write(`${USAGE}\nRuns the contract suite (${SUITE_ID}) the service publishes at /verify/suite.json\nagainst it and prints which requirements hold. Exit 0 when all hold.\n`);
    return EXIT.ok;
  }
  // Not clientOptionsFromEnv: the suite is keyless (LEGALWORK_KEY stays home), and an empty LEGALWORK_URL is a bad address here.
  const base = values.url ?? env.LEGALWORK_URL ?? DEFAULT_BASE_URL;
  try {
    new URL(base);
  } catch {
    streams.stderr.write(`legalwork verify: --url "${base}" is not an absolute URL\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.pin !== undefined && !SHA256_HEX.test(values.pin)) {
    streams.stderr.write('legalwork verify: --pin must be 64 lowercase hex characters\n');
    return EXIT.usage;
  }
  let run: SuiteRun;
  try {
    run = await runSuite(base);
  } catch (error) {
    // No answer at all is the client's ServiceUnreachable; anything else is the answer's fault.
    if (error instanceof ServiceUnreachable) {
      streams.stderr.write(`legalwork verify: no answer from ${base}: ${error.reason}\n`);
      return EXIT.unreachable;
    }
    streams.stderr.write(`legalwork verify: ${base} does not publish a usable suite: ${(error as Error).message}\n`);
    return EXIT.refused;
  }
  const pinHolds = values.pin === undefined || values.pin === run.suite.pin;
  streams.stdout.write(values.json ? `${JSON.stringify({ ...run, pinHolds }, null, 2)}\n` : render(run, values.pin));
  return run.ok && pinHolds ? EXIT.ok : EXIT.refused;
}
