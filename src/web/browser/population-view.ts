/**
 * Reading a population for a person: ages in words, how thick a taken
 * transition is drawn, the diagram's caption, a state's words, and the
 * cursors of a state's records listed a page at a time. Pure: no DOM,
 * unit-tested.
 */
import type { Population, PopulationState } from './contract.ts';

/** Records listed per page of a state. */
export const MEMBERS_PAGE = 20;

const UNITS: Array<[string, number]> = [
  ['y', 365 * 86400],
  ['d', 86400],
  ['h', 3600],
  ['min', 60],
  ['s', 1],
];

/** An age in words, to the two largest units: 45 s, 12 min, 3 h 5 min, 2 d 4 h, 1 y 20 d. */
export function ageWords(seconds: number): string {
  const i = UNITS.findIndex(([, size]) => seconds >= size);
  if (i < 0) return '0 s';
  const [big, size] = UNITS[i];
  const first = Math.floor(seconds / size);
  const next = UNITS[i + 1];
  const rest = next && big !== 'min' ? Math.floor((seconds - first * size) / next[1]) : 0;
  return `${first} ${big}${rest ? ` ${rest} ${next[0]}` : ''}`;
}

/** How thick an edge taken `taken` times is drawn, 0 to 1, when the most taken was taken `most` times: by logarithm, so a rare path stays visible beside a busy one. */
export const weightOf = (taken: number, most: number): string => (Math.log1p(taken) / Math.log1p(Math.max(1, most))).toFixed(3);

/** What the page calls one record of the machine, and several. */
export interface Nouns {
  /** `Matter`, as the tab and the captions name the machine. */
  title: string;
  /** What one record and several are called: `Matter`, `Matters`. */
  noun: string;
  nouns: string;
}

/** A machine the page shows, as the page is served with it (`data-machines`). */
export interface PopulationMachine extends Nouns {
  kind: 'matter' | 'deadline-ladder' | 'enrollment';
  /** The population door the script reads (`…/inspection/matters`). */
  data: string;
  /** The generated SVG (`/docs/diagrams/<machine>.svg`). */
  diagram: string;
}

export const nounOf = (machine: Nouns, n: number): string => (n === 1 ? machine.noun : machine.nouns);

/** The diagram's caption: how many, who waits where, and how to list a state's records. */
export function populationCaption(machine: Nouns, data: Population | null): string {
  if (!data) return `${machine.title} machine: none in this grain yet.`;
  const waiting = data.states.flatMap((s) => (s.tags.length && s.oldest ? [`${s.count} in ${s.path} (oldest ${ageWords(s.oldest.ageSeconds)})`] : []));
  return `${machine.title} machine: ${data.total} ${nounOf(machine, data.total)}; a badge on each state counts those in it${waiting.length ? `; waiting: ${waiting.join(', ')}` : ''}; each transition says how many times it was taken (×n, thicker when taken more). Choose a state to list its ${machine.nouns}.`;
}

/** A state as its button on the diagram reads aloud. */
export const stateLabel = (machine: Nouns, s: PopulationState): string => `${s.path}: ${s.count} ${nounOf(machine, s.count)}${s.oldest ? `, the oldest there ${ageWords(s.oldest.ageSeconds)}` : ''}. List them`;

/**
 * Where a state's listing stands: the `after` of each page listed so far
 * (the first page's is 0), so Earlier goes back and Later forth, and the
 * next page's cursor once a page is read (null: that was the last).
 */
export class MemberPages {
  cursors = [0];
  next: number | null = null;

  /** The first page, again. */
  first(): void {
    this.cursors = [0];
  }

  earlier(): void {
    if (this.cursors.length > 1) this.cursors.pop();
  }

  later(): void {
    if (this.next !== null) this.cursors.push(this.next);
  }

  /** The page shown now, counted from 1. */
  get page(): number {
    return this.cursors.length;
  }

  /** The index of the first record of the page shown. */
  get offset(): number {
    return (this.cursors.length - 1) * MEMBERS_PAGE;
  }

  /** The page's address under the state's `members` door. */
  url(members: string): string {
    const after = this.cursors[this.cursors.length - 1];
    return `${members}?limit=${MEMBERS_PAGE}${after ? `&after=${after}` : ''}`;
  }
}
