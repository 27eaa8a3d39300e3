import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that share a worker (docs/testing.md "Two projects"): each runs the core in process (the app,
 * the memory core, or no core at all), or a server on a port or the CLI in a child process that it
 * stops (IN_PROCESS_SERVING), and leaves nothing of its own in the process's modules, its environment
 * or its globals when it ends, so the next file of the worker starts as if alone.
 * A worker imports the server's modules once for all of them instead of once per file.
 * Every other file (a browser, the host CLIs, a longer file with a server or the CLI, one that changes
 * the process) keeps a fresh module graph of its own, as every file had before.
 * Every file of IN_PROCESS_FOLDER is in process (a unit test opens no server of its own, but electron-shell, listed as serving); so are
 * IN_PROCESS_FILES (test/unit/test-projects.test.ts checks both against what the files do).
 * test/security/16-search-freeze.test.ts runs the core in process but stays isolated: the search it
 * attacks stops at 500 ms of wall time, and in a shared worker it ran over twice in five runs.
 */
export const IN_PROCESS_FOLDER = 'test/unit';
export const IN_PROCESS_FILES = [
  ...[
    'abuse-heap',
    'allowed-actions',
    'backup',
    'capability-stop',
    'context',
    'core-auth',
    'core-human-api',
    'core-tools',
    'diagnose',
    'doctor-version',
    'ergonomics',
    'events',
    'feedback-consent',
    'feedback-report',
    'feedback-task',
    'files',
    'files-migration',
    'fuzz-routes',
    'fuzz-tools',
    'member-actions',
    'needs-you',
    'packaging-layout',
    'packaging-start',
    'paging',
    'reservations',
    'route-evidence',
    'search',
    'seed-large',
    'tasks',
    'tasks-claim',
    'tasks-migration',
    'tasks-trust',
    'tool-annotations',
    'ui-store-loaders',
    'wakes-consent',
    'wakes-limits',
    'wakes-limits-migration',
    'wakes-mention-outcome',
    'wakes-migration',
    'wakes-runner',
    'workspace',
  ].map((name) => `test/integration/${name}.test.ts`),
  ...[
    '04-redos',
    '09-evidence-flood',
    '10-mcp-session-caps',
    '11-home-modes',
    '13-download-types',
    '14-bidi-paths',
    '15-glob-freeze',
    '17-invisible-and-leaks',
    '18-export-symlinks',
    '19-user-text-freeze',
    'cross-owner-trust',
    'dispatch-recheck',
    'file-delete',
    'runner-rights',
    'workspace-visibility',
  ].map((name) => `test/security/${name}.test.ts`),
];
/**
 * In process too, though each starts a server on a port (`startTestServer`) or the CLI in a child
 * process (`spawnServer`, `cliArgs`) and stops it: short files, for which a worker of their own cost
 * more in imports than their tests took (docs/testing.md "Files that serve"). A file that changes
 * `httpTimeouts`, the process or its environment is not one of them.
 */
export const IN_PROCESS_SERVING = [
  ...[
    'abuse-sessions',
    'app-parity',
    'backup-export',
    'cli',
    'conformance',
    'durability-gate',
    'files-crash',
    'files-memory',
    'files-presigned',
    'fuzz-mcp-wire',
    'limits-disk',
    'load-concurrency',
    'mcp-fast-path',
    'reservations-guard',
    'tasks-crash',
    'tool-profiles',
  ].map((name) => `test/integration/${name}.test.ts`),
  'test/security/15-connect-secrets.test.ts',
  // The desktop shell's options and port fallback against real cores on ports it closes (docs/desktop.md).
  'test/unit/electron-shell.test.ts',
];
const IN_PROCESS = [`${IN_PROCESS_FOLDER}/**/*.test.ts`, ...IN_PROCESS_FILES, ...IN_PROCESS_SERVING];

const ALL = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', 'test/security/**/*.test.ts', 'test/hosts/*.test.ts'];

/** What both projects run with. */
const common = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks',
  // Every answer of a route with a contract is checked against it (usecase/define.ts): a contract
  // that says what the server does not send fails the test that called the route.
  env: { AGENT_ROOMS_CHECK_ANSWERS: '1' },
} as const;

export default defineConfig({
  test: {
    // One bundle of the CLI per run: child servers and CLI runs start from it instead of tsx (docs/testing.md).
    // Set here and not in the projects, so it runs once for the run, not once per project.
    globalSetup: ['test/helpers/cli-bundle.ts'],
    // Vitest's default (cores - 1) runs the files one at a time on two cores, while most of a file's
    // time is spent waiting (child processes, fsync, the browser): two files at once (docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    passWithNoTests: false,
    projects: [
      { test: { ...common, name: 'in-process', include: IN_PROCESS, isolate: false } },
      { test: { ...common, name: 'isolated', include: ALL, exclude: [...configDefaults.exclude, ...IN_PROCESS] } },
    ],
  },
});
