/**
 * The creation bound's ledger in memory keeps at most its capacity of
 * callers: those whose window has emptied go first, then the one whose
 * last admission is oldest; a caller still counted is never forgotten for
 * them, so the bound stays exact while the callers fit.
 */
import { describe, expect, it } from 'vitest';
import { MemoryAdmissions } from '../../src/engine/creation-bound.ts';

const WINDOW = 1_000;

describe('MemoryAdmissions', () => {
  it('forgets the callers whose window has emptied before any still counted', async () => {
    const ledger = new MemoryAdmissions(2);
    await ledger.admit('a', 0, WINDOW, 1);
    await ledger.admit('b', 900, WINDOW, 1);
    // At 1,500 a's window is empty, b's is not: a third caller forgets a alone.
    await ledger.admit('c', 1_500, WINDOW, 1);
    expect(ledger.size).toBe(2);
    expect(await ledger.admit('b', 1_600, WINDOW, 1)).toMatchObject({ admitted: false, count: 1, oldestMs: 900 });
    expect(await ledger.admit('c', 1_600, WINDOW, 1)).toMatchObject({ admitted: false, count: 1, oldestMs: 1_500 });
  });

  it('past its capacity forgets the caller admitted longest ago, never more than it must', async () => {
    const ledger = new MemoryAdmissions(3);
    await ledger.admit('a', 0, WINDOW, 2);
    await ledger.admit('b', 1, WINDOW, 2);
    await ledger.admit('b', 2, WINDOW, 2);
    await ledger.admit('c', 3, WINDOW, 2);
    // a is admitted again: now b was admitted longest ago, and a fourth caller forgets it alone.
    await ledger.admit('a', 10, WINDOW, 2);
    await ledger.admit('d', 11, WINDOW, 2);
    expect(ledger.size).toBe(3);
    // b, forgotten, opens as a new caller (kept, its two admissions would refuse it); that forgets c.
    expect(await ledger.admit('b', 12, WINDOW, 2)).toEqual({ admitted: true });
    expect(await ledger.admit('a', 13, WINDOW, 2)).toMatchObject({ admitted: false, count: 2, oldestMs: 0 });
    expect(ledger.size).toBe(3);
  });

  it('does not move a refused caller ahead of those admitted since', async () => {
    const ledger = new MemoryAdmissions(2);
    await ledger.admit('a', 0, WINDOW, 1);
    await ledger.admit('b', 1, WINDOW, 1);
    // a is refused: no admission, so it stays the oldest and goes first.
    expect((await ledger.admit('a', 2, WINDOW, 1)).admitted).toBe(false);
    await ledger.admit('c', 3, WINDOW, 1);
    expect(await ledger.admit('b', 4, WINDOW, 1)).toMatchObject({ admitted: false });
    expect(await ledger.admit('a', 4, WINDOW, 1)).toEqual({ admitted: true });
  });
});
