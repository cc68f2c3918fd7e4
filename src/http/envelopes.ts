/**
 * Typed outcomes. Every answer that reports a result is OK, EMPTY (a truthful
 * empty set, never a bare array) or BLOCKED.
 */
export const ok = <T extends Record<string, unknown>>(body: T) => ({ type: 'OK' as const, ...body });

export const empty = (message: string, extra: Record<string, unknown> = {}) => ({ type: 'EMPTY' as const, results: [], message, ...extra });

/** A list answer: OK with results, or a typed EMPTY saying why nothing is there. */
export function listed<T>(results: T[], emptyMessage: string, extra: Record<string, unknown> = {}) {
  return results.length ? { type: 'OK' as const, results, ...extra } : empty(emptyMessage, extra);
}
