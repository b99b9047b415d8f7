import { defineConfig } from 'vitest/config';

// Lives under test/ because the repository's top level is fixed by the product card.
export default defineConfig({
  root: new URL('..', import.meta.url).pathname,
  test: {
    include: ['test/**/*.test.ts'],
    // One fast-check seed for every property: fixed in npm test, random in test:reliability.
    setupFiles: ['test/setup/fuzz-seed.ts'],
    // Hang detectors, not speed limits: the suite must pass with both cores busy (a test that runs
    // pay a dozen times can take a minute on a loaded machine). Speed is measured by npm run bench.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: child processes and servers in every file; keep parallelism modest.
    maxWorkers: 2,
  },
});
