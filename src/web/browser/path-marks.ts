/**
 * Marking a record's path on its machine's diagram, as data: what each step
 * of the inspection marks (the edges it took, the start arrows of the
 * opening, or the state a fact without an edge left it in), the states it
 * visited, the edges open now and refused now, how a badge lists the steps
 * one element took, and where it sits beside a label. The inspector applies
 * them to the drawn elements. Pure: no DOM, unit-tested.
 */
import type { Inspection } from './contract.ts';

/** What one step marks: the edges its cause took, the opening's start arrows (by scope, outermost first), or the state it stayed in. */
export type StepMark = { step: number; edges: string[] } | { step: number; starts: string[] } | { step: number; state: string };

export interface PathMarks {
  steps: StepMark[];
  /** Every state the path entered. */
  visited: Set<string>;
  /** The edges of the commands open now. */
  open: Set<string>;
  /** The edges of the commands refused now. */
  refused: Set<string>;
}

/** The scopes whose start arrows lead into a state, outermost first: the root's, then each compound's above it. */
export function startScopes(path: string): string[] {
  const parts = path.split('.');
  const scopes = [''];
  for (let i = 1; i < parts.length; i++) scopes.push(parts.slice(0, i).join('.'));
  return scopes;
}

/** The compound states a state sits in, outermost first. */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
}

export function pathMarks(insp: Pick<Inspection, 'path' | 'open' | 'refused'>): PathMarks {
  const steps: StepMark[] = [];
  const visited = new Set<string>();
  for (const s of insp.path ?? []) {
    if (s.to) visited.add(s.to);
    if (s.transitions?.length) steps.push({ step: s.step, edges: s.transitions });
    else if (s.from === null && s.to) steps.push({ step: s.step, starts: startScopes(s.to) });
    else if (s.to) steps.push({ step: s.step, state: s.to });
  }
  return {
    steps,
    visited,
    open: new Set((insp.open ?? []).flatMap((o) => o.transitions ?? [])),
    refused: new Set((insp.refused ?? []).flatMap((r) => r.transitions ?? [])),
  };
}

/** Step numbers as one short label: a loop walked hundreds of times stays one badge. */
export function stepsLabel(steps: number[]): string {
  if (steps.length <= 3) return steps.join(', ');
  return `${steps[0]}, ${steps[1]} … ${steps[steps.length - 1]} (${steps.length}×)`;
}

/**
 * Where a step badge of `width` goes on an edge whose middle is at `midX`:
 * there, when the edge has no label; else beside the middle on the side away
 * from the label (spanning `label.x1`–`label.x2`), so it never covers the words.
 */
export function besideLabel(midX: number, label: { x1: number; x2: number } | null, width: number): number {
  if (!label) return midX;
  const away = (label.x1 + label.x2) / 2 > midX ? -1 : 1;
  return midX + away * (width / 2 + 3);
}
