import { describe, expect, it } from 'vitest';
import { deadlineLadderMachine } from '../machines/deadline-ladder.ts';
import { deadlineLadderTable } from '../machines/deadline-ladder.table.ts';
import { finalStates, machineEdges } from '../machines/edges.ts';

const key = (e: { from: string; event: string; guard: string | null; to: string | null; refuses: boolean }) => JSON.stringify([e.from, e.event, e.guard, e.to, e.refuses]);

describe('the Deadline Ladder machine and its transition table', () => {
  it('has exactly the edges the table lists', () => {
    expect(machineEdges(deadlineLadderMachine).map(key).sort()).toEqual(deadlineLadderTable.map(key).sort());
  });

  it('makes resolved the one final state, with no edge out of it', () => {
    expect(finalStates(deadlineLadderMachine)).toEqual(['resolved']);
    expect(machineEdges(deadlineLadderMachine).filter((e) => e.from === 'resolved')).toEqual([]);
  });

  it('reaches resolved only by evidence on a one-shot ladder or an outcome at the terminal rung', () => {
    expect(deadlineLadderTable.filter((e) => e.to === 'resolved').map((e) => [e.from, e.event, e.guard])).toEqual([
      ['open', 'SATISFY', 'oneShotEvidence'],
      ['open.terminalRung', 'RESOLVE', 'outcomeListed'],
    ]);
  });

  it('moves only on explicit events: no delayed or eventless transition', () => {
    const walk = (node: { after: unknown[]; always?: unknown[]; states: Record<string, unknown> }): number =>
      node.after.length + (node.always?.length ?? 0) + Object.values(node.states).reduce<number>((n, child) => n + walk(child as never), 0);
    expect(walk(deadlineLadderMachine.root as never)).toBe(0);
  });
});
