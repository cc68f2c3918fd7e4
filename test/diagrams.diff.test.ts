/**
 * Reviewing a machine change (issue 36, item 3): a throwaway git repository
 * holds a copy of `machines/`, committed; the copy is then changed in its
 * working tree the way a reviewer would meet it, and the change is read from
 * the commit's own sources (`git archive`, a child process) against the tree.
 * The report must name exactly the changes made: an added transition and a
 * removed guard (the issue's own example), then a changed fact, a removed
 * refusing edge and an added state under a raised version; the drawing marks
 * each of them, and nothing else, by name.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMachinesAt, readMachinesIn } from '../src/diagrams/at-ref.ts';
import { readCoverageFile } from '../src/diagrams/coverage.ts';
import type { Change } from '../src/diagrams/diff.ts';
import { transitionToken } from '../src/diagrams/names.ts';
import { MACHINES } from '../src/diagrams/registry.ts';
import { diffSvg, review, reviewReport, type Reviewed } from '../src/diagrams/review.ts';
import { isCleanSvg } from '../src/web/diagrams.ts';
import { PACKAGE_ROOT } from '../src/paths.ts';

const SOURCES = MACHINES.map((m) => ({ source: m.source, id: m.machine.id }));
let repo: string;
let base: string;

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Edits a machine's source in the working tree: each [before, after] must be found exactly once. */
function edit(file: string, ...replacements: Array<[string, string]>) {
  const path = join(repo, file);
  let text = readFileSync(path, 'utf8');
  for (const [from, to] of replacements) {
    expect(text.split(from).length - 1, `${file}: "${from}" once`).toBe(1);
    text = text.replace(from, to);
  }
  writeFileSync(path, text);
}

/** The review of the working tree against the base commit, as `npm run diagrams -- --against` makes it. */
function reviewed(): Reviewed[] {
  const now = readMachinesIn(repo, SOURCES);
  const then = readMachinesAt(repo, base, SOURCES, join(PACKAGE_ROOT, 'node_modules'));
  const entries = MACHINES.map((m, i) => {
    const read = now[i];
    if (read.status !== 'read') throw new Error(`${m.source}: ${JSON.stringify(read)}`);
    return { name: m.name, title: m.title, source: m.source, now: read.model, coverage: readCoverageFile(m.name) };
  });
  return review(entries, then);
}

/** A change as one comparable line: mark, element, name, what was, what changed, whether it re-reads history. */
const rows = (changes: Change[]) => changes.map((c) => [c.mark, c.element, c.name, c.was ?? null, c.details, c.rereads !== null]);

/** Each `<g>` of an SVG with its id and class tokens (Graphviz writes `-` as `&#45;`). */
const groups = (svg: string) => [...svg.matchAll(/<g id="([^"]*)" class="([^"]*)"/g)].map((m) => ({ id: m[1].replace(/&#45;/g, '-'), classes: m[2].replace(/&#45;/g, '-').split(' ') }));
const marked = (svg: string, mark: string) => groups(svg).filter((g) => g.classes.includes(`diff-${mark}`));

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'legalwork-diff-repo-'));
  cpSync(join(PACKAGE_ROOT, 'machines'), join(repo, 'machines'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{ "type": "module", "private": true }\n');
  git('init', '-q');
  git('add', 'machines', 'package.json');
  git('-c', 'user.name=test', '-c', 'user.email=test@legalwork.test', 'commit', '-q', '-m', 'the machines as they are');
  base = git('rev-parse', 'HEAD');
  // The tree reads its packages from this checkout, as the ref's copy does.
  symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
}, 60_000);

afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('a machine change against a git ref', () => {
  it('reads no change where there is none', () => {
    const r = reviewed();
    for (const m of r) {
      expect(m.problem).toBeUndefined();
      expect(m.diff!.changes, m.name).toEqual([]);
    }
    expect(reviewReport(r, { ref: 'base', commit: base }, (n) => `${n}.diff.svg`)).toMatch(/^no machine changed against `base`/);
  }, 60_000);

  it('names exactly an added transition and a removed guard, says no model path walks the new edge, and that the version was not raised', async () => {
    edit(
      'machines/matter.ts',
      ["review: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'sign' } } } } },", "review: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'sign' } } }, CLIENT_DIRECTION: { target: 'prepare', actions: 'reopen' } } },"],
      ["intake: { on: { ADVANCE: { guard: 'consentSatisfied', target: 'prepare',", "intake: { on: { ADVANCE: { target: 'prepare',"],
    );
    const r = reviewed();
    const matter = r.find((m) => m.name === 'matter')!.diff!;
    expect(rows(matter.changes)).toEqual([
      ['changed', 'transition', 'open.intake ADVANCE -> open.prepare', 'open.intake ADVANCE [consentSatisfied] -> open.prepare', ['guard consentSatisfied removed'], true],
      ['added', 'transition', 'open.review CLIENT_DIRECTION -> open.prepare', null, ['emits client.direction'], true],
    ]);
    // The Matter accepted CLIENT_DIRECTION in review before (on `open`, in place): a journaled one would fold differently now.
    expect(matter.changes[1].rereads).toContain('took `open CLIENT_DIRECTION -> (stays)`');
    expect(matter.unwalked).toEqual(['open.review CLIENT_DIRECTION -> open.prepare']);
    expect(matter.version).toMatchObject({ before: 1, after: 1, export: 'MATTER_MACHINE_VERSION', needed: true, raised: false, ok: false });
    for (const other of r.filter((m) => m.name !== 'matter')) expect(other.diff!.changes, other.name).toEqual([]);

    const report = reviewReport(r, { ref: 'main', commit: base, how: 'merge base of HEAD and main' }, (n) => `visualizations/${n}.diff.svg`);
    expect(report).toContain('## Machine changes against `main` (merge base of HEAD and main, ');
    expect(report).toContain('- `~` changed transition `open.intake ADVANCE -> open.prepare` (was `open.intake ADVANCE [consentSatisfied] -> open.prepare`): guard consentSatisfied removed.');
    expect(report).toContain('- `+` added transition `open.review CLIENT_DIRECTION -> open.prepare`: emits client.direction.');
    expect(report).toContain('**No model path walks yet:** `open.review CLIENT_DIRECTION -> open.prepare`');
    expect(report).toContain('NOT raised: matter@1 before and after, but 2 changes here can re-read recorded history');
    expect(report).toContain('raise MATTER_MACHINE_VERSION to 2');
    expect(report).toContain('Unchanged: deadline-ladder, enrollment.');
    // One line per change, nothing about a machine that did not change.
    expect(report.split('\n').filter((l) => /^- `[+−~]`/.test(l))).toHaveLength(2);

    const svg = await diffSvg(matter, { ref: 'main', commit: base });
    expect(isCleanSvg(svg)).toBe(true);
    const classes = (mark: string) => marked(svg, mark).flatMap((g) => g.classes.filter((c) => c.startsWith('t:') || c === 'state'));
    expect(classes('added')).toEqual([transitionToken('open.review CLIENT_DIRECTION -> open.prepare')]);
    expect(classes('changed')).toEqual([transitionToken('open.intake ADVANCE -> open.prepare')]);
    expect(classes('removed')).toEqual([]);
    // Marked in words and line, not colour alone: a glyph before the label, the old guard named, a legend of the marks.
    expect(svg).toContain('>+ CLIENT_DIRECTION<');
    expect(svg).toContain('>~ ADVANCE<');
    expect(svg).toContain('(guard consentSatisfied removed)');
    expect(groups(svg).map((g) => g.id)).toContain('legend');
    for (const words of ['+ added', '− removed', '~ changed']) expect(svg).toContain(words);
  }, 60_000);

  it('names a changed fact, a removed refusing edge and an added state, and a version raised as docs/versioning.md asks', async () => {
    edit(
      'machines/matter.ts',
      ['export const MATTER_MACHINE_VERSION = 1;', 'export const MATTER_MACHINE_VERSION = 2;'],
      ["fact({ kind: 'consent', by: 'client'", "fact({ kind: 'consent.given', by: 'client'"],
      ['            LAPSE: {},\n', ''],
      ['    fulfilled: { type: \'final\' },', "    fulfilled: { type: 'final' },\n    archived: { type: 'final' },"],
    );
    const matter = reviewed().find((m) => m.name === 'matter')!.diff!;
    expect(rows(matter.changes)).toEqual([
      ['added', 'state', 'archived', null, ['a terminal'], false],
      ['changed', 'transition', 'open CONSENT -> (stays)', null, ['emits consent.given (was consent)'], true],
      ['changed', 'transition', 'open.intake ADVANCE -> open.prepare', 'open.intake ADVANCE [consentSatisfied] -> open.prepare', ['guard consentSatisfied removed'], true],
      ['added', 'transition', 'open.review CLIENT_DIRECTION -> open.prepare', null, ['emits client.direction'], true],
      // A refused LAPSE was never journaled: dropping the refusal re-reads nothing (open's guarded LAPSE now applies there).
      ['removed', 'transition', 'open.waiting_on_signer LAPSE -> (refuses)', null, ['open.waiting_on_signer no longer refuses LAPSE itself: `open LAPSE [confirmedUnresponsiveTwice] -> lapsed` applies there now'], false],
    ]);
    expect(matter.version).toMatchObject({ before: 1, after: 2, needed: true, raised: true, ok: true });
    expect(matter.version.words).toBe('raised 1 → 2, as docs/versioning.md asks of a change that can re-read recorded history');
    const svg = await diffSvg(matter, { ref: 'main', commit: base });
    expect(marked(svg, 'added').map((g) => g.id)).toContain('state:archived');
    expect(marked(svg, 'removed').flatMap((g) => g.classes)).toContain(transitionToken('open.waiting_on_signer LAPSE -> (refuses)'));
    expect(svg).toContain('>− LAPSE<');
  }, 60_000);
});

describe('npm run diagrams -- --against', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [join(PACKAGE_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/diagrams.ts', ...args], { cwd: PACKAGE_ROOT, encoding: 'utf8' });

  it('says so, and exits 0, when there is no branch to compare with (CI on a clone without it)', () => {
    const out = run('--against-merge-base', 'no-such-branch-here');
    expect(out.status).toBe(0);
    expect(out.stdout).toBe('no machine changed that this run can see: neither no-such-branch-here nor origin/no-such-branch-here is a ref here, so there is nothing to compare with.\n');
  }, 60_000);

  it('refuses a ref that names no commit, exit 2', () => {
    const out = run('--against', 'no-such-ref-here');
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('--against no-such-ref-here: not a commit in this repository');
  }, 60_000);
});
