import { describe, expect, it } from 'vitest';
import { finalStates, machineEdges } from '../../machines/edges.ts';
import { matterMachine, TERMINALS } from '../../machines/matter.ts';
import { matterTable } from '../../machines/matter.table.ts';

const key = (e: { from: string; event: string; guard: string | null; to: string | null; refuses: boolean }) => JSON.stringify([e.from, e.event, e.guard, e.to, e.refuses]);

describe('the Matter machine and its transition table', () => {
  it('has exactly the edges the table lists', () => {
    expect(machineEdges(matterMachine).map(key).sort()).toEqual(matterTable.map(key).sort());
  });

  it('makes the four terminals final', () => {
    expect(finalStates(matterMachine).sort()).toEqual([...TERMINALS].sort());
  });

  it('declares no transition out of a terminal', () => {
    expect(machineEdges(matterMachine).filter((e) => (TERMINALS as readonly string[]).includes(e.from))).toEqual([]);
  });

  it('reaches fulfilled only from the filed stage, off a receipt', () => {
    expect(matterTable.filter((e) => e.to === 'fulfilled')).toEqual([{ from: 'open.file', event: 'FILE_RECEIPT', guard: 'receiptOnFile', to: 'fulfilled', refuses: false }]);
  });
});
