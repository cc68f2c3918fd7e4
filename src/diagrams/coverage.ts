/**
 * `visualizations/<machine>.coverage.json`: which transitions of a machine
 * the model tests' paths walked through the HTTP service, and how many paths
 * walked each (refusing edges among them). `npm run test:model` writes it
 * (test/model/coverage.ts); the docs page and the inspector draw it on the
 * diagram, walked and unwalked edges apart; `npm run diagrams -- --against`
 * reads it to say which added transitions no model path walks yet.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EdgeKind } from '../../machines/edges.ts';
import { PACKAGE_ROOT } from '../paths.ts';

/** The model's two path sets (`test/model/runner.ts`): the shortest paths end once on every transition; the simple ones walk every loop-free path. */
export const PATH_SETS = ['shortest', 'simple'] as const;
export type PathSet = (typeof PATH_SETS)[number];

/** One transition of the file. */
export interface TransitionCoverage {
  /** `edgeKey` (machines/edges.ts), the name the SVG and the inspection give it. */
  key: string;
  kind: EdgeKind;
  /** Paths that walked it, both sets. */
  paths: number;
  shortest: number;
  simple: number;
}

export interface CoverageFile {
  machine: string;
  about: string;
  /** Paths replayed per set, over every variant. */
  paths: Record<PathSet, number>;
  /** Transitions walked by at least one path, of all the machine's; refusing edges among them. */
  walked: number;
  total: number;
  refusing: { walked: number; total: number };
  /** Every transition of the machine, in its declaration order. */
  transitions: TransitionCoverage[];
}

export const coveragePath = (name: string) => `visualizations/${name}.coverage.json`;

/** The file as committed under `root`, or null when there is none (or it is not JSON). */
export function readCoverageFile(name: string, root = PACKAGE_ROOT): CoverageFile | null {
  try {
    return JSON.parse(readFileSync(join(root, coveragePath(name)), 'utf8')) as CoverageFile;
  } catch {
    return null;
  }
}
