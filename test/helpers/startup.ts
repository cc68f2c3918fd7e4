/**
 * Whether a restart grows with its journal, decided so that a busy machine
 * cannot decide it (issue 33, item 5; docs/reliability.md, "Time in the
 * suite"). The service is restarted over the big journal and over a tiny one
 * in turn (tiny, big, tiny, big, ...), with the same first requests, and the
 * best of each is compared, twice:
 * - the CPU the process used up to its first answers: the same work takes
 *   about the same CPU however busy the cores are, so this bound can be
 *   tight, 1.5 CPU-seconds over the tiny journal's. It catches work in the
 *   process that grows with the journal: reading and parsing the bodies of a
 *   million events costs about three CPU-seconds, folding them through the
 *   machines far more. (It was one CPU-second, and CI's Node 24 pass once
 *   failed it by 0.01 s for no change of the service: on this 2-core machine
 *   the tiny journal's best of three start-ups measured 1.40, 1.89 and 3.09
 *   CPU-seconds in three runs of one day, the garbage collector's and the
 *   compiler's threads charged to the process as the cores allowed;
 * - the wall time to those answers, which a busy core stretches (a start-up
 *   took 1 s on a quiet machine and 4 to 9 s beside two busy loops): twice
 *   the tiny journal's and a second. It catches a start-up that waits on the
 *   database or on anything else for seconds, which no CPU figure shows.
 * Other work on the cores slows both journals alike, and a moment of it is
 * forgiven by the best of several. How soon the first answer comes is a
 * figure for `npm run bench`, not an assertion.
 */
import { doubledWithRoom } from './wait.ts';

export interface Timed {
  /** ms from spawn to the last of the first answers. */
  firstAnswers: number;
  /** CPU time the process had used by then (user + system, all its threads), in seconds. */
  cpuSeconds: number;
}

/** The CPU a start-up over the big journal may use beyond the tiny one's, in seconds. */
export const CPU_ROOM_SECONDS = 1.5;

export interface StartsCompared<T extends Timed> {
  big: T[];
  tiny: T[];
  /** Best wall time of each, ms, and what the big one is held to: twice the tiny one's and a second. */
  bestBig: number;
  bestTiny: number;
  bound: number;
  /** Least CPU of each, seconds, and what the big one is held to: the tiny one's and CPU_ROOM_SECONDS. */
  bestBigCpu: number;
  bestTinyCpu: number;
  cpuBound: number;
}

/** `rounds` restarts over each journal, taken in turn, tiny first; their best, and the bounds. */
export async function startsCompared<T extends Timed>(rounds: number, restart: { big: () => Promise<T>; tiny: () => Promise<T> }): Promise<StartsCompared<T>> {
  const big: T[] = [];
  const tiny: T[] = [];
  for (let i = 0; i < rounds; i++) {
    tiny.push(await restart.tiny());
    big.push(await restart.big());
  }
  const best = (runs: T[], of: (r: T) => number) => Math.min(...runs.map(of));
  const bestTiny = best(tiny, (r) => r.firstAnswers);
  const bestTinyCpu = best(tiny, (r) => r.cpuSeconds);
  return {
    big,
    tiny,
    bestBig: best(big, (r) => r.firstAnswers),
    bestTiny,
    bound: doubledWithRoom(bestTiny),
    bestBigCpu: best(big, (r) => r.cpuSeconds),
    bestTinyCpu,
    cpuBound: bestTinyCpu + CPU_ROOM_SECONDS,
  };
}

/** One line of figures for a failure message or a log. */
export function startsLine(s: StartsCompared<Timed>): string {
  return `first answers, best of ${s.big.length}: ${s.bestBig.toFixed(0)} ms over the big journal, ${s.bestTiny.toFixed(0)} ms over the tiny one (bound ${s.bound.toFixed(0)} ms); CPU by then ${s.bestBigCpu.toFixed(2)} s against ${s.bestTinyCpu.toFixed(2)} s (bound ${s.cpuBound.toFixed(2)} s)`;
}
