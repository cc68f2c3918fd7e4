/**
 * The Enrollment machine's test model, replayed through the HTTP app with the
 * machine as the oracle: every transition on a shortest path, every simple
 * path, for each variant, each path in a fresh firm; then random legal and
 * illegal sequences (fast-check) that must agree with it too, with the
 * enrollment's ceremonies only ever growing.
 */
import { describe, it } from 'vitest';
import { enrollmentMachine } from '../../machines/enrollment.ts';
import { call } from '../helpers/app.ts';
import { enrollmentAdapter } from './enrollment.adapter.ts';
import { agreesWithMachine } from './property.ts';
import { modelSuite } from './suite.ts';

describe('Enrollment model through HTTP', () => {
  const appOf = modelSuite(enrollmentMachine, enrollmentAdapter, { minSimplePaths: 10, timeoutMs: 300_000 });

  it('random legal and illegal acts agree with the machine; revoked is forever; ceremonies only grow', async () => {
    const app = appOf();
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
