/**
 * The Enrollment machine's test model, replayed through the HTTP app with the
 * machine as the oracle: every transition on a shortest path, every simple
 * path, for each variant, each path in a fresh firm; then random legal and
 * illegal sequences (fast-check) that must agree with it too, with the
 * enrollment's ceremonies only ever growing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollmentMachine } from '../../machines/enrollment.ts';
import { call, testApp, type TestApp } from '../helpers/app.ts';
import { edgeIndex } from './coverage.ts';
import { enrollmentAdapter } from './enrollment.adapter.ts';
import { agreesWithMachine } from './property.ts';
import { runModel } from './runner.ts';

let app: TestApp;
beforeAll(async () => {
  // A firm per path: more than one caller's default creation bound.
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

describe('Enrollment model through HTTP', () => {
  it('shortest paths exercise every transition of the machine', async () => {
    const result = await runModel(enrollmentAdapter, app, { paths: 'shortest' });
    const missing = edgeIndex(enrollmentMachine).keys.filter((k) => !result.covered.has(k));
    expect(missing).toEqual([]);
    expect(result.covered.size).toBe(result.total);
  }, 300_000);

  it('every simple path agrees with the machine at every step', async () => {
    const result = await runModel(enrollmentAdapter, app, { paths: 'simple' });
    expect(result.paths).toBeGreaterThan(10);
  }, 300_000);

  it('random legal and illegal acts agree with the machine; revoked is forever; ceremonies only grow', async () => {
    await agreesWithMachine(enrollmentAdapter, app, {
      numRuns: 40,
      maxSteps: 8,
      invariants: () => {
        let seen: unknown[] = [];
        const ceremonies = async (firm: string) => (await call(app, 'GET', `${firm}/enrollments`)).body.results[0].ceremonies as unknown[];
        return {
          async afterOpen(replay) {
            seen = await ceremonies(replay.handle.firm);
          },
          async afterStep(replay, outcome) {
            const now = await ceremonies(replay.handle.firm);
            if (now.length - seen.length !== outcome.emitted.length) throw new Error(`${replay.label}: ${now.length - seen.length} ceremonies for ${outcome.emitted.length} facts`);
            if (JSON.stringify(now.slice(0, seen.length)) !== JSON.stringify(seen)) throw new Error(`${replay.label}: an earlier ceremony changed`);
            seen = now;
          },
        };
      },
    });
  }, 300_000);
});
