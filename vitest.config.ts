import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/security/**/*.test.ts', 'test/hosts/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One bundle of the CLI per run: child servers and CLI runs start from it instead of tsx (docs/testing.md).
    globalSetup: ['test/helpers/cli-bundle.ts'],
    pool: 'forks',
    // Vitest's default (cores - 1) runs the files one at a time on two cores, while most of a file's
    // time is spent waiting (child processes, fsync, the browser): two files at once (docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    passWithNoTests: false,
  },
});
