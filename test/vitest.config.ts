import { defineConfig } from 'vitest/config';

// Lives under test/ because the repository's top level is fixed by the product card.
export default defineConfig({
  root: new URL('..', import.meta.url).pathname,
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: child processes and servers in every file; keep parallelism modest.
    maxWorkers: 2,
  },
});
