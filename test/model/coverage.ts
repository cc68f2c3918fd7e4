/**
 * Transition coverage of a machine's graph: which of its edges (the rows
 * `machineEdges` reads from the machine itself, named by `edgeKey` in
 * `machines/edges.ts`) a path replayed through the HTTP service exercised,
 * and how many paths walked each.
 *
 * Model runs record what they walked into `LEGALWORK_MODEL_COVERAGE` (a
 * directory) when it is set; `npm run test:model` sets it, runs the model
 * tests, reads the records back, prints one line per machine and writes
 * `visualizations/<machine>.coverage.json` (`coverageFile`). That file is
 * what the docs page and the inspector draw, and what `npm run diagrams --
 * --against` reads to say which added transitions no path walks yet.
 *
 * It stays current the way the diagrams do: every ordinary run of a model
 * test (`npm test`) compares the walks it just made with the committed file
 * and fails, naming the transitions whose counts differ, until
 * `npm run test:model` is run again (`expectCommittedCoverage`); and
 * `test/coverage.test.ts` fails naming any transition no path walks.
 *
 * Only the model paths are counted: they are the same on every run (the
 * graph's shortest and simple paths), so the file is deterministic. The
 * fast-check properties walk random sequences under a fresh seed each run,
 * so what they walked would change the file on every run; they are not
 * recorded.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyStateMachine } from 'xstate';
import { edgeIndex, edgeKey, edgeKind, machineEdges } from '../../machines/edges.ts';
import { coveragePath, readCoverageFile, type CoverageFile, type PathSet } from '../../src/diagrams/coverage.ts';

export { coveragePath, readCoverageFile, PATH_SETS, type CoverageFile, type PathSet, type TransitionCoverage } from '../../src/diagrams/coverage.ts';

export const COVERAGE_ENV = 'LEGALWORK_MODEL_COVERAGE';

export interface CoverageRecord {
  machine: string;
  variant: string;
  mode: PathSet;
  covered: string[];
  /** For each edge walked: how many of the variant's paths walked it. */
  walks: Record<string, number>;
  total: number;
  paths: number;
}

/** Appends one model run's coverage to the directory named by the environment, if any. */
export function recordCoverage(record: CoverageRecord): void {
  const dir = process.env[COVERAGE_ENV];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${record.machine}.${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
}

export function readCoverage(dir: string): CoverageRecord[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  } catch {
    return [];
  }
  return files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as CoverageRecord),
  );
}

export interface MachineCoverage {
  machine: string;
  covered: number;
  total: number;
  paths: number;
  missing: string[];
}

/**
 * Folds the records of one machine: covered is the union of edges any run
 * exercised, counted against the machine's own edges (never the records' say).
 */
export function summarize(name: string, machine: AnyStateMachine, records: CoverageRecord[]): MachineCoverage {
  const keys = edgeIndex(machine).keys;
  const seen = new Set(records.filter((r) => r.machine === name).flatMap((r) => r.covered));
  const paths = records.filter((r) => r.machine === name).reduce((n, r) => n + r.paths, 0);
  const missing = keys.filter((k) => !seen.has(k));
  return { machine: name, covered: keys.length - missing.length, total: keys.length, paths, missing };
}

/** The one line per machine `npm run test:model` prints. */
export const coverageLine = (c: MachineCoverage) => `${c.machine}: ${c.covered}/${c.total} transitions, ${c.paths} paths`;

// ---------------------------------------------------------------- the committed file

const ABOUT = 'Written by `npm run test:model` from the model paths it replayed through the HTTP service (test/model/coverage.ts); do not edit by hand. `npm test` fails when a model run walks otherwise.';

/** The file for one machine from a run's records: every edge of the machine, walked or not, in its own order. */
export function coverageFile(name: string, machine: AnyStateMachine, records: CoverageRecord[]): CoverageFile {
  const mine = records.filter((r) => r.machine === name);
  const walks = (key: string, set: PathSet) => mine.filter((r) => r.mode === set).reduce((n, r) => n + (r.walks[key] ?? 0), 0);
  const transitions = machineEdges(machine).map((e) => {
    const key = edgeKey(e);
    const shortest = walks(key, 'shortest');
    const simple = walks(key, 'simple');
    return { key, kind: edgeKind(e), paths: shortest + simple, shortest, simple };
  });
  const refusing = transitions.filter((t) => t.kind === 'refuses');
  return {
    machine: name,
    about: ABOUT,
    paths: { shortest: mine.filter((r) => r.mode === 'shortest').reduce((n, r) => n + r.paths, 0), simple: mine.filter((r) => r.mode === 'simple').reduce((n, r) => n + r.paths, 0) },
    walked: transitions.filter((t) => t.paths > 0).length,
    total: transitions.length,
    refusing: { walked: refusing.filter((t) => t.paths > 0).length, total: refusing.length },
    transitions,
  };
}

export const serializeCoverage = (file: CoverageFile) => `${JSON.stringify(file, null, 2)}\n`;

/**
 * What one ordinary model run walked against the committed file, for one path
 * set: the transitions whose path counts differ, each worded. Empty when the
 * file is current. Under `npm run test:model` (the run that writes the file)
 * there is nothing to compare with.
 */
export function staleCoverage(name: string, machine: AnyStateMachine, set: PathSet, walks: ReadonlyMap<string, number>, paths: number): string[] {
  if (process.env[COVERAGE_ENV]) return [];
  const committed = readCoverageFile(name);
  const fix = `run \`npm run test:model -- ${name}\` and commit ${coveragePath(name)}`;
  if (!committed) return [`${coveragePath(name)} is missing: ${fix}`];
  const out: string[] = [];
  if (committed.paths[set] !== paths) out.push(`${set} paths: ${paths} replayed, the file says ${committed.paths[set]}`);
  const listed = new Map(committed.transitions.map((t) => [t.key, t[set]]));
  for (const key of edgeIndex(machine).keys) {
    const now = walks.get(key) ?? 0;
    if (!listed.has(key)) out.push(`${key}: not in the file (walked by ${now} ${set} paths)`);
    else if (listed.get(key) !== now) out.push(`${key}: walked by ${now} ${set} paths, the file says ${listed.get(key)}`);
  }
  for (const key of listed.keys()) if (!edgeIndex(machine).keys.includes(key)) out.push(`${key}: in the file, not an edge of the machine`);
  return out.length ? [...out, fix] : [];
}
