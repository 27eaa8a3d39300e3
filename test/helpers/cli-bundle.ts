import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI_SOURCE = join(ROOT, 'src-main/core/cli.ts');
/** Set by the global setup below to the bundle it built for this run. */
const ENV = 'AGENT_ROOMS_TEST_CLI_BUNDLE';

/**
 * The test scripts that run as child processes of a test (docs/testing.md "Child processes"),
 * bundled beside the CLI: each is `<name>.mjs` in the bundle's folder.
 */
export const TEST_SCRIPTS = {
  /** a load-generating agent of the crash run (test/load/crash.ts) */
  'load-worker': 'test/load/worker.ts',
  /** the abandoned sessions' heap check (abuse-heap.test.ts): a core of its own */
  abandon: 'test/load/abandon.ts',
  /** the consistency of a home, printed as one line (limits-disk.test.ts) */
  integrity: 'test/load/integrity.ts',
} as const;

/**
 * The node arguments that run `agent-rooms` from source in a child process (docs/testing.md
 * "Child processes"): the run's bundle of src-main/core/cli.ts when the global setup built one,
 * else the source itself through tsx. Both are the same code: the bundle is made from the
 * source when the run starts, so a child starts without transforming the whole core again.
 */
export function cliArgs(): string[] {
  const bundle = process.env[ENV];
  return bundle && existsSync(bundle) ? [bundle] : ['--import', 'tsx', CLI_SOURCE];
}

/** The node arguments that run one of TEST_SCRIPTS: its bundle of this run, else its source through tsx. */
export function scriptArgs(name: keyof typeof TEST_SCRIPTS): string[] {
  const cli = process.env[ENV];
  const bundle = cli ? join(dirname(cli), `${name}.mjs`) : undefined;
  return bundle && existsSync(bundle) ? [bundle] : ['--import', 'tsx', join(ROOT, TEST_SCRIPTS[name])];
}

/**
 * vitest globalSetup: bundles the CLI and TEST_SCRIPTS once for the run (esbuild, which tsx runs
 * on; packages stay external, so better-sqlite3 is the installed one). The bundles sit two folders
 * under the repository, as cli.ts does, so what the core finds from its own location (the package
 * root, node_modules) is the same. Without esbuild the children fall back to tsx.
 */
export default async function setup(): Promise<() => void> {
  const dir = join(ROOT, 'test-results', `cli-${process.pid}`);
  try {
    const { build } = (await import('esbuild')) as typeof import('esbuild');
    mkdirSync(dir, { recursive: true });
    const entryPoints = { cli: CLI_SOURCE, ...Object.fromEntries(Object.entries(TEST_SCRIPTS).map(([name, source]) => [name, join(ROOT, source)])) };
    await build({ entryPoints, bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outdir: dir, outExtension: { '.js': '.mjs' }, logLevel: 'warning' });
    process.env[ENV] = join(dir, 'cli.mjs');
  } catch (err) {
    console.warn(`test/helpers/cli-bundle.ts: children run the CLI through tsx (${(err as Error).message})`);
  }
  return () => {
    delete process.env[ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
