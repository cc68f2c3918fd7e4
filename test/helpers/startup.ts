/**
 * Whether a restart grows with its journal, decided so that a busy machine
 * cannot decide it (issue 33, item 5; docs/reliability.md, "Time in the
 * suite"). The service is restarted over the big journal and over a tiny one
 * in turn (tiny, big, tiny, big, ...), with the same first requests, and the
 * best of each is compared: other work on the cores slows both alike, and a
 * moment of it is forgiven by the best of several. What this catches, a
 * start-up that scans or replays the journal before it answers, costs the big
 * journal seconds that the tiny one does not pay. How soon the first answer
 * comes is a figure for `npm run bench`, not an assertion.
 */
import { doubledWithRoom } from './wait.ts';

export interface Timed {
  /** ms from spawn to the last of the first answers. */
  firstAnswers: number;
}

export interface StartsCompared<T extends Timed> {
  big: T[];
  tiny: T[];
  bestBig: number;
  bestTiny: number;
  /** What the best restart over the big journal is held to: twice the best over the tiny one and a second. */
  bound: number;
}

/** `rounds` restarts over each journal, taken in turn, tiny first; their best, and the bound. */
export async function startsCompared<T extends Timed>(rounds: number, restart: { big: () => Promise<T>; tiny: () => Promise<T> }): Promise<StartsCompared<T>> {
  const big: T[] = [];
  const tiny: T[] = [];
  for (let i = 0; i < rounds; i++) {
    tiny.push(await restart.tiny());
    big.push(await restart.big());
  }
  const best = (runs: T[]) => Math.min(...runs.map((r) => r.firstAnswers));
  const bestTiny = best(tiny);
  return { big, tiny, bestBig: best(big), bestTiny, bound: doubledWithRoom(bestTiny) };
}
