/**
 * Redis for the shared rate limit's tests: LEGALWORK_TEST_REDIS_URL, which
 * `npm test` sets to the machine's own server or to one it started for the
 * run (scripts/test-services.ts); a file run on its own without it uses the
 * machine's (127.0.0.1:6379).
 */
import { DEFAULT_REDIS_URL } from '../../scripts/test-services.ts';

export const TEST_REDIS_URL = process.env.LEGALWORK_TEST_REDIS_URL ?? DEFAULT_REDIS_URL;
export const TEST_REDIS_PORT = Number(new URL(TEST_REDIS_URL).port || 6379);
export const TEST_REDIS_HOST = new URL(TEST_REDIS_URL).hostname;
