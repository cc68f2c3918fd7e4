/**
 * The Deadline Ladder machine's test model, replayed through the HTTP app with
 * the machine as the oracle: every transition on a shortest path, every simple
 * (loop-free) path of the lean event set, for one-shot and recurring ladders from both fixture
 * Assets, each path on its own ladder in a fresh sandbox workspace.
 */
import { describe } from 'vitest';
import { deadlineLadderMachine } from '../../machines/deadline-ladder.ts';
import { ladderAdapter, leanLadderAdapter } from './deadline-ladder.adapter.ts';
import { modelSuite } from './suite.ts';

describe('Deadline Ladder model through HTTP', () => {
  modelSuite(deadlineLadderMachine, ladderAdapter, { simple: leanLadderAdapter });
});
