/**
 * Which test files the PostgreSQL pass of `npm test` runs: exactly those
 * where the pass's journal matters, read off the code rather than listed by
 * hand, so a new file is placed by what it does.
 *
 * The pass's journal is chosen in one place, `testJournal` in
 * `test/helpers/app.ts`, which the app builders there call (`testApp`,
 * `listeningApp`, `acrossRestarts`). A file that calls one of them, itself
 * or through a helper it imports, runs its apps on the pass's journal and
 * runs in both passes. A file that never does (pure units and properties,
 * the machines, their tables and deciders, the CLI's parsers, tests that
 * spawn the service as an operator does, tests that pick their journals
 * themselves) would only repeat itself, and runs once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const BUILDS_ON_PASS_JOURNAL = /\b(testJournal|testApp|listeningApp|acrossRestarts)\(/;
/** Where they are defined (and call each other): the calls that count are elsewhere. */
const BUILDERS = resolve(import.meta.dirname, 'helpers/app.ts');

/** Does `file`, or a test or bench helper it imports, build an app on the pass's journal? */
export function usesPassJournal(file: string, seen = new Set<string>()): boolean {
  const path = resolve(file);
  if (path === BUILDERS || seen.has(path) || !existsSync(path)) return false;
  seen.add(path);
  const source = readFileSync(path, 'utf8');
  if (BUILDS_ON_PASS_JOURNAL.test(source)) return true;
  // The service's own modules never read the pass: only test and bench helpers are followed.
  return [...source.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].some(([, spec]) => {
    const dep = resolve(dirname(path), spec);
    return /\/(test|bench)\//.test(dep) && usesPassJournal(dep, seen);
  });
}
