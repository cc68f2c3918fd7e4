/**
 * `npm run diagrams`: writes `visualizations/` from the machines (see
 * `src/diagrams/generate.ts`). Deterministic: a second run changes nothing.
 *
 * `npm run diagrams -- --against <git ref>` reviews a machine change instead:
 * each registered machine now against the same machine at the ref, built
 * from the ref's own sources (`src/diagrams/at-ref.ts`). It prints the report
 * a reviewer pastes (and writes it to `visualizations/machines.diff.md`) and
 * draws each changed machine's change (`visualizations/<machine>.diff.svg`);
 * neither file is committed. `--against-merge-base <branch>` compares with
 * the merge base of HEAD and the branch (`origin/<branch>` when there is no
 * local one), as CI does on a branch; with no such branch or merge base it
 * says so and exits 0. Writes go to stderr; stdout is only the report.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { commitOf, readMachinesAt, readMachinesIn } from '../src/diagrams/at-ref.ts';
import { readCoverageFile } from '../src/diagrams/coverage.ts';
import { generateDiagrams, OUT_DIR } from '../src/diagrams/generate.ts';
import { MACHINES } from '../src/diagrams/registry.ts';
import { diffSvg, hasChanged, review, reviewReport, type Against } from '../src/diagrams/review.ts';
import { PACKAGE_ROOT as root } from '../src/paths.ts';

const write = (path: string, content: string) => {
  const target = resolve(root, path);
  mkdirSync(dirname(target), { recursive: true });
  const current = existsSync(target) ? readFileSync(target, 'utf8') : null;
  if (current === content) return 'unchanged';
  writeFileSync(target, content);
  return current === null ? 'wrote' : 'updated';
};

async function generate() {
  for (const file of await generateDiagrams()) console.log(`${write(file.path, file.content)} ${file.path}`);
}

/** The merge base of HEAD and `branch` (or `origin/<branch>`), or why there is none. */
function mergeBase(branch: string): Against | string {
  for (const ref of [branch, `origin/${branch}`]) {
    if (!commitOf(root, ref)) continue;
    try {
      const commit = execFileSync('git', ['merge-base', 'HEAD', ref], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
      return { ref, commit, how: `merge base of HEAD and ${ref}` };
    } catch {
      return `HEAD and ${ref} share no history here (a shallow clone?)`;
    }
  }
  return `neither ${branch} nor origin/${branch} is a ref here`;
}

async function compare(against: Against) {
  const sources = MACHINES.map((m) => ({ source: m.source, id: m.machine.id }));
  // Both sides in a child process under the same loader, so the code of their actions prints alike.
  const now = readMachinesIn(root, sources);
  const at = readMachinesAt(root, against.commit, sources);
  const entries = MACHINES.map((m, i) => {
    const read = now[i];
    if (read.status !== 'read') throw new Error(`${m.source} does not read here: ${read.status === 'unreadable' ? read.reason : 'missing'}`);
    return { name: m.name, title: m.title, source: m.source, now: read.model, coverage: readCoverageFile(m.name, root) };
  });
  const reviewed = review(entries, at);
  const svgPath = (name: string) => `${OUT_DIR}/${name}.diff.svg`;
  for (const r of reviewed) {
    // Only the machines that changed have a drawing: one left from an earlier review would mislead.
    if (r.diff && hasChanged(r)) console.error(`${write(svgPath(r.name), await diffSvg(r.diff, against))} ${svgPath(r.name)}`);
    else rmSync(resolve(root, svgPath(r.name)), { force: true });
  }
  const report = reviewReport(reviewed, against, svgPath);
  console.error(`${write(`${OUT_DIR}/machines.diff.md`, report)} ${OUT_DIR}/machines.diff.md`);
  process.stdout.write(report);
}

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (!value || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
};

const ref = flag('--against');
const base = flag('--against-merge-base');
if (ref !== undefined) {
  const commit = commitOf(root, ref);
  if (!commit) {
    console.error(`--against ${ref}: not a commit in this repository`);
    process.exit(2);
  }
  await compare({ ref, commit });
} else if (base !== undefined) {
  const found = mergeBase(base);
  if (typeof found === 'string') console.log(`no machine changed that this run can see: ${found}, so there is nothing to compare with.`);
  else await compare(found);
} else {
  await generate();
}
