/**
 * Transition coverage of a machine's graph: which of its edges (the rows
 * `machineEdges` reads from the machine itself) a path replayed through the
 * HTTP service exercised.
 *
 * Model runs record what they covered into `LEGALWORK_MODEL_COVERAGE` (a
 * directory) when it is set; `npm run test:model` sets it, runs the model
 * tests, and reads the records back to print one line per machine.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyStateMachine, AnyMachineSnapshot, EventObject } from 'xstate';
import { edgeKind, machineTransitions, type Edge } from '../../machines/edges.ts';

/** A readable, stable name for an edge: `open.review ESCALATE -> open.waiting_on_signer`. */
export function edgeKey(e: Edge): string {
  const guard = e.guard ? ` [${e.guard}]` : '';
  const to = e.to ?? `(${edgeKind(e)})`;
  return `${e.from} ${e.event}${guard} -> ${to}`;
}

export interface EdgeIndex {
  /** Every edge of the machine's graph, by key, in declaration order. */
  keys: string[];
  /** The edges (by key) a snapshot selects for an event: what sending it exercises. */
  selected(snapshot: AnyMachineSnapshot, event: EventObject): string[];
}

const indexes = new WeakMap<AnyStateMachine, EdgeIndex>();

/** Indexes a machine's transition definitions by the key of their edge. */
export function edgeIndex(machine: AnyStateMachine): EdgeIndex {
  const cached = indexes.get(machine);
  if (cached) return cached;
  const transitions = machineTransitions(machine);
  const keyOf = new Map<unknown, string>(transitions.map((t) => [t.definition, edgeKey(t.edge)]));
  const index: EdgeIndex = {
    keys: transitions.map((t) => edgeKey(t.edge)),
    selected(snapshot, event) {
      const chosen = machine.getTransitionData(snapshot as never, event as never) ?? [];
      return chosen.map((t: unknown) => {
        const key = keyOf.get(t);
        if (!key) throw new Error(`edge index of ${machine.id}: a selected transition is not among the machine's edges`);
        return key;
      });
    },
  };
  indexes.set(machine, index);
  return index;
}

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
