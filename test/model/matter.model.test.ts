/**
 * The Matter machine's test model, replayed through the HTTP app with the
 * machine as the oracle: every transition on a shortest path, every simple
 * (loop-free) path, once per consumer pattern and fixture Client, each path on
 * its own Matter in a fresh sandbox workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matterMachine } from '../../machines/matter.ts';
import { testApp, type TestApp } from '../helpers/app.ts';
import { edgeIndex } from './coverage.ts';
import { matterAdapter } from './matter.adapter.ts';
import { runModel } from './runner.ts';

let app: TestApp;
beforeAll(async () => {
  // A workspace per path: far more than one caller's sandbox creation bound allows by default.
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

describe('Matter model through HTTP', () => {
  it('shortest paths exercise every transition of the machine', async () => {
    const result = await runModel(matterAdapter, app, { paths: 'shortest' });
    const missing = edgeIndex(matterMachine).keys.filter((k) => !result.covered.has(k));
    expect(missing).toEqual([]);
    expect(result.covered.size).toBe(result.total);
  }, 600_000);

  it('every simple path agrees with the machine at every step', async () => {
    const result = await runModel(matterAdapter, app, { paths: 'simple' });
    expect(result.paths).toBeGreaterThan(0);
  }, 600_000);
});
