/**
 * The two model-based tests every machine gets, replayed through the HTTP app
 * with the machine as the oracle: shortest paths exercise every transition,
 * and every simple (loop-free) path agrees at every step. Call inside a
 * `describe`; returns the app for any further test of the same machine.
 *
 * In the postgres project the shortest paths run (every transition through
 * that journal) and the long simple-path walk does not: it would repeat the
 * sqlite project's walk step for step, and the adapters' conformance suite
 * (test/journal/store.test.ts) already holds the two journals alike.
 *
 * Each walk is also held to `visualizations/<machine>.coverage.json` (the
 * paths that walked each transition, written by `npm run test:model`): a run
 * that walks otherwise fails, naming the transitions, so the drawn coverage
 * never goes stale. The postgres project holds its shortest paths to it.
 */
import type { AnyStateMachine } from 'xstate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PASS_JOURNAL, testApp, type TestApp } from '../helpers/app.ts';
import { edgeIndex } from '../../machines/edges.ts';
import { staleCoverage } from './coverage.ts';
import { runModel, type ModelAdapter } from './runner.ts';

export interface ModelSuiteOptions<M extends AnyStateMachine, H> {
  /** The adapter for the simple paths, when the full event set has too many of them. */
  simple?: ModelAdapter<M, H>;
  /** The simple paths the machine must at least have. */
  minSimplePaths?: number;
  timeoutMs?: number;
}

export function modelSuite<M extends AnyStateMachine, H>(machine: M, adapter: ModelAdapter<M, H>, options: ModelSuiteOptions<M, H> = {}): () => TestApp {
  const timeout = options.timeoutMs ?? 600_000;
  let app: TestApp;
  beforeAll(async () => {
    // A fresh grain per path: far more than one caller's sandbox creation bound allows by default.
    app = await testApp({ creationBound: { limit: 1_000_000 } });
  });
  afterAll(async () => {
    await app.close();
  });

  it('shortest paths exercise every transition of the machine', async () => {
    const result = await runModel(adapter, app, { paths: 'shortest' });
    const missing = edgeIndex(machine).keys.filter((k) => !result.covered.has(k));
    expect(missing).toEqual([]);
    expect(result.covered.size).toBe(result.total);
    expect(staleCoverage(adapter.name, machine, 'shortest', result.walks, result.paths)).toEqual([]);
  }, timeout);

  if (PASS_JOURNAL === 'sqlite') {
    it('every simple path agrees with the machine at every step', async () => {
      const result = await runModel(options.simple ?? adapter, app, { paths: 'simple' });
      expect(result.paths).toBeGreaterThan(options.minSimplePaths ?? 0);
      expect(staleCoverage(adapter.name, machine, 'simple', result.walks, result.paths)).toEqual([]);
    }, timeout);
  }

  return () => app;
}
