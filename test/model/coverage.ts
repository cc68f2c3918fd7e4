/**
 * Transition coverage of a machine's graph: which of its edges (the rows
 * `machineEdges` reads from the machine itself, named by `edgeKey` in
 * `machines/edges.ts`) a path replayed through the HTTP service exercised.
 *
 * Model runs record what they covered into `LEGALWORK_MODEL_COVERAGE` (a
 * directory) when it is set; `npm run test:model` sets it, runs the model
 * tests, and reads the records back to print one line per machine.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyStateMachine } from 'xstate';
import { edgeIndex } from '../../machines/edges.ts';

export const COVERAGE_ENV = 'LEGALWORK_MODEL_COVERAGE';

export interface CoverageRecord {
  machine: string;
  variant: string;
  mode: string;
  covered: string[];
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
