/**
 * The committed contract types are always current: regenerate
 * `src/client/contract.gen.ts` in memory from the document the app publishes
 * and hold it byte-equal to the file, so the service client (which the CLI and
 * the MCP server share) is typed from the contract the service serves, never
 * from a stale copy of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_TYPES_FILE, contractTypes } from '../scripts/contract-types.ts';
import { PACKAGE_ROOT as root } from '../src/paths.ts';

describe(CONTRACT_TYPES_FILE, () => {
  it('is exactly what openapi-typescript generates from the served contract', async () => {
    const generated = await contractTypes();
    const committed = readFileSync(join(root, CONTRACT_TYPES_FILE), 'utf8');
    // A plain boolean, not a 600 KB diff: the message says what to do, and where the drift starts.
    expect(committed === generated, `${CONTRACT_TYPES_FILE} differs from the served contract${firstDifference(committed, generated)}: run npm run contract:types`).toBe(true);
  }, 60_000);
});

/** ` (from line n: committed …, generated …)`: the first line where the two texts part. */
function firstDifference(committed: string, generated: string): string {
  const left = committed.split('\n');
  const right = generated.split('\n');
  const found = left.findIndex((text, i) => text !== right[i]);
  const at = found === -1 ? left.length : found;
  const show = (line: string | undefined) => (line === undefined ? '(end of file)' : JSON.stringify(line.trim()));
  return ` (from line ${at + 1}: committed ${show(left[at])}, generated ${show(right[at])})`;
}
