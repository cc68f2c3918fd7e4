import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every reply a test produces is held to its route's declared schema (src/http/reply-check.ts).
    env: { LEGALWORK_REPLY_CHECK: '1' },
  },
});
