/**
 * The Deadline Ladder machine's test model, replayed through the HTTP app with
 * the machine as the oracle: every transition on a shortest path, every simple
 * (loop-free) path of the lean event set, for one-shot and recurring ladders from both fixture
 * Assets, each path on its own ladder in a fresh sandbox workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadlineLadderMachine } from '../../machines/deadline-ladder.ts';
import { testApp, type TestApp } from '../helpers/app.ts';
import { edgeIndex } from './coverage.ts';
import { ladderAdapter, leanLadderAdapter } from './deadline-ladder.adapter.ts';
import { runModel } from './runner.ts';

let app: TestApp;
beforeAll(async () => {
  // A workspace per path: far more than one caller's sandbox creation bound allows by default.
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

describe('Deadline Ladder model through HTTP', () => {
  it('shortest paths exercise every transition of the machine', async () => {
    const result = await runModel(ladderAdapter, app, { paths: 'shortest' });
    const missing = edgeIndex(deadlineLadderMachine).keys.filter((k) => !result.covered.has(k));
    expect(missing).toEqual([]);
    expect(result.covered.size).toBe(result.total);
  }, 600_000);

  it('every simple path agrees with the machine at every step', async () => {
    const result = await runModel(leanLadderAdapter, app, { paths: 'simple' });
    expect(result.paths).toBeGreaterThan(0);
  }, 600_000);
});
