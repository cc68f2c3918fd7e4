/**
 * What each test file costs in CPU, for the slowest-files report
 * (scripts/slowest-files.ts): the worker's CPU from before the file is
 * imported to after its last hook, with the children it started and waited
 * for (a service, a CLI run, chromium). On a machine whose cores are shared,
 * a file's wall time says as much about its neighbours as about itself; its
 * CPU time says what it asks of the machine. Read from /proc/self/stat,
 * where the OS keeps both (Linux; elsewhere nothing is recorded).
 */
import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** CPU milliseconds the file took, its waited-for children included. */
    cpuMs?: number;
  }
}

/** Clock ticks per second of /proc's times: 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** utime + stime + cutime + cstime, in ms; null where /proc is not there to read. */
function cpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command's closing parenthesis, which may itself hold spaces: state is field 3, utime field 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

const start = cpuMs();

// The file's suite is the hook's second argument; the first, the fixtures, vitest reads by its destructuring.
afterAll(({}, file) => {
  const end = cpuMs();
  if (start !== null && end !== null) file.meta.cpuMs = end - start;
});
