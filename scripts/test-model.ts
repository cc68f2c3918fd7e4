/**
 * `npm run test:model`: runs the model-based tests of every registered
 * machine (`test/model/<name>.model.test.ts`) and prints one line per machine:
 *
 *   <machine>: <covered>/<total> transitions, <n> paths
 *
 * total is every transition of the machine's graph (read from the machine);
 * covered is those a path replayed through the HTTP service exercised, as the
 * runner recorded them. Exits non-zero if a test failed or any machine is
 * below 100%; the failing output and the uncovered transitions go to stderr.
 * Naming machines (`npm run test:model -- matter`) runs only those.
 *
 * After a passing run it writes, per machine run, `visualizations/<machine>.coverage.json`:
 * every transition with how many paths of each set walked it (refusing edges
 * among them), deterministic from run to run (test/model/coverage.ts). A
 * failing run writes nothing: a file is only ever what a whole passing run walked.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MACHINES } from '../src/diagrams/registry.ts';
import { PACKAGE_ROOT as root } from '../src/paths.ts';
import { COVERAGE_ENV, coverageFile, coverageLine, coveragePath, readCoverage, serializeCoverage, summarize } from '../test/model/coverage.ts';

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const dir = mkdtempSync(join(tmpdir(), 'legalwork-model-coverage-'));

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !MACHINES.some((m) => m.name === w));
if (unknown.length) throw new Error(`unknown machine ${unknown.join(', ')}: one of ${MACHINES.map((m) => m.name).join(', ')}`);
const machines = wanted.length ? MACHINES.filter((m) => wanted.includes(m.name)) : MACHINES;

let failed = false;
try {
  const tests = machines.map((m) => `test/model/${m.name}.model.test.ts`);
  const present = tests.filter((t) => existsSync(join(root, t)));
  for (const t of tests.filter((t) => !present.includes(t))) {
    console.error(`missing model test ${t}`);
    failed = true;
  }
  const run = spawnSync(process.execPath, [vitest, 'run', ...present], {
    cwd: root,
    env: { ...process.env, [COVERAGE_ENV]: dir },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    failed = true;
    process.stderr.write(run.stdout ?? '');
    process.stderr.write(run.stderr ?? '');
    if (run.error) console.error(run.error.message);
  }
  const records = readCoverage(dir);
  for (const { name, machine } of machines) {
    const coverage = summarize(name, machine, records);
    console.log(coverageLine(coverage));
    if (coverage.covered < coverage.total) {
      failed = true;
      for (const edge of coverage.missing) console.error(`  ${name}: not exercised: ${edge}`);
    }
  }
  if (failed) console.error(`the run failed: ${machines.map((m) => coveragePath(m.name)).join(', ')} left as they were`);
  else {
    for (const { name, machine } of machines) {
      const target = join(root, coveragePath(name));
      const content = serializeCoverage(coverageFile(name, machine, records));
      const current = existsSync(target) ? readFileSync(target, 'utf8') : null;
      if (current !== content) writeFileSync(target, content);
      console.error(`${current === content ? 'unchanged' : current === null ? 'wrote' : 'updated'} ${coveragePath(name)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
