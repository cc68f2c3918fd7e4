/**
 * The Matter machine's test model, replayed through the HTTP app with the
 * machine as the oracle: every transition on a shortest path, every simple
 * (loop-free) path, once per consumer pattern and fixture Client, each path on
 * its own Matter in a fresh sandbox workspace.
 */
import { describe } from 'vitest';
import { matterMachine } from '../../machines/matter.ts';
import { matterAdapter } from './matter.adapter.ts';
import { modelSuite } from './suite.ts';

describe('Matter model through HTTP', () => {
  modelSuite(matterMachine, matterAdapter);
});
