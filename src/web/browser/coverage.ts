/**
 * The model tests' coverage of a machine as the pages draw it: the data a
 * page is served (`src/web/diagrams.ts` cuts `visualizations/<machine>.coverage.json`
 * to it), and what is said of it in words. Pure: no DOM, unit-tested.
 */

/** What a page draws of a machine's model coverage: the totals, and how many model paths walked each transition. */
export interface DrawnCoverage {
  walked: number;
  total: number;
  refusing: { walked: number; total: number };
  paths: { shortest: number; simple: number };
  transitions: Array<{ key: string; paths: number }>;
}

/** What a coverage drawing drew, for its caption: the totals and the transitions no model path walks. */
export type CoverageDrawn = Omit<DrawnCoverage, 'transitions'> & { unwalked: string[] };

/** The words after a walked transition's label: how many paths walked it. */
export const walkedWords = (paths: number): string => `· ${paths}${paths === 1 ? ' path' : ' paths'}`;

/** The coverage in one sentence, for a caption: `<machine>: 12 of 14 transitions walked by 30 model paths (…); unwalked: …`. */
export function coverageWords(machine: string, c: CoverageDrawn): string {
  const paths = c.paths.shortest + c.paths.simple;
  return `${machine}: ${c.walked} of ${c.total} transitions walked by ${paths} model paths (${c.refusing.walked} of ${c.refusing.total} refusing edges)${c.unwalked.length ? `; unwalked: ${c.unwalked.join('; ')}` : '; none unwalked'}.`;
}
