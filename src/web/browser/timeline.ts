/**
 * The inspector's timeline paging: a record's facts shown a page at a time
 * (a Matter with thousands renders one page), which page holds a fact, and
 * where a key moves the choice. Pure: no DOM, unit-tested.
 */

/** Facts shown per timeline page. */
export const TIMELINE_PAGE = 50;

/** How many pages `count` facts fill: one at least (no facts is one empty page). */
export const pageCount = (count: number): number => Math.max(1, Math.ceil(count / TIMELINE_PAGE));

/** The page that holds the fact of `seq`; the last page when no fact has it. */
export function pageOfSeq(steps: ReadonlyArray<{ seq: number }>, seq: number | null): number {
  const i = steps.findIndex((s) => s.seq === seq);
  return i < 0 ? pageCount(steps.length) - 1 : Math.floor(i / TIMELINE_PAGE);
}

/** One page of the timeline: the page asked for, kept in range. */
export interface TimelinePage<T> {
  page: number;
  shown: T[];
  /** `facts 51–100 of 120`, or `no facts`. */
  info: string;
  first: boolean;
  last: boolean;
}

export function timelinePage<T>(steps: readonly T[], asked: number): TimelinePage<T> {
  const pages = pageCount(steps.length);
  const page = Math.min(Math.max(0, asked), pages - 1);
  const from = page * TIMELINE_PAGE;
  const shown = steps.slice(from, from + TIMELINE_PAGE);
  return { page, shown, info: steps.length ? `facts ${from + 1}–${from + shown.length} of ${steps.length}` : 'no facts', first: page === 0, last: page >= pages - 1 };
}

/** How far each key moves the choice: one fact, or a page. */
const MOVES: Record<string, number> = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, PageDown: TIMELINE_PAGE, PageUp: -TIMELINE_PAGE };

/**
 * Where `key` moves the choice from the fact at `index` of `count`: ↓ → the
 * next, ↑ ← the one before, Page Down and Page Up a page, Home the first, End
 * the last, kept in range; undefined for a key that does not move it.
 */
export function keyTarget(key: string, index: number, count: number): number | undefined {
  const to = key === 'Home' ? 0 : key === 'End' ? count - 1 : Object.hasOwn(MOVES, key) ? index + MOVES[key] : undefined;
  return to === undefined ? undefined : Math.min(Math.max(0, to), count - 1);
}
