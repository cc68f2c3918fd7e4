/**
 * Waiting in a test without depending on how fast the machine is today
 * (issue 33, item 5; docs/reliability.md, "Time in the suite"): a test waits
 * for the thing itself (an answer, a frame, a closed socket, a row), never
 * for a fixed time it assumes is enough, and takes only a much longer absence
 * for a hang. A figure of speed is a `npm run bench` row, or is held to a
 * yardstick measured in the same test (`doubledWithRoom`).
 */

/**
 * How long a wait lasts before it is taken for a hang: far beyond what
 * anything a test waits for takes on a 2-core machine with both cores busy
 * with other work (milliseconds to a second or two), and half the suite's own
 * test timeout (30 s), so that a hang fails saying what never came rather
 * than as a bare timeout.
 */
export const HANG_MS = 15_000;

/**
 * The same for a service process's first answers after its spawn: about a
 * second on a quiet machine, and up to 10.5 s seen with two busy loops beside
 * the run (load average 10).
 */
export const START_HANG_MS = 60_000;

/**
 * Room after a deadline the service keeps itself (a drain's), for what must
 * still happen once it has passed: the process closes its journal and exits,
 * tens of milliseconds on a quiet machine. A bound of the deadline plus this
 * still catches a deadline that is not kept (the clients a drain waits on
 * take minutes, or never finish).
 */
export const AFTER_DEADLINE_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once `check` holds, asking every `everyMs`; fails after
 * `timeoutMs` naming `what` (a function is called then, so it can say what
 * was seen).
 */
export async function until(check: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = HANG_MS, everyMs = 20): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(everyMs);
  }
}

/** `promise`'s value, or a failure naming `what` once `timeoutMs` has passed without it. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = HANG_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The bound on a time measured against a yardstick taken in the same test,
 * on the same machine, at the same moment: twice the yardstick and a second.
 * A core busy with other work slows both alike; the doubling and the second
 * are room for the load changing between the two measurements. What such a
 * bound is there to catch costs far more: a start-up that replays a journal,
 * a request that waits on a dead dependency for a timeout of seconds.
 */
export const doubledWithRoom = (yardstickMs: number) => 2 * yardstickMs + 1000;
