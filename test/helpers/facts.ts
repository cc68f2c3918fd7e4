/** The facts a pure `transition()` would emit (its `xstate.emit` actions), for the machine unit tests. */
export function emittedFacts(actions: ReadonlyArray<{ type: string; params?: unknown }>): Array<Record<string, unknown> & { kind: string; data: Record<string, unknown> }> {
  return actions
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: { type: string; kind: string; data: Record<string, unknown> } }).event)
    .map(({ type: _type, ...fact }) => fact);
}
