import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI_SOURCE = join(ROOT, 'src-main/core/cli.ts');
/** Set by the global setup below to the bundle it built for this run. */
const ENV = 'AGENT_ROOMS_TEST_CLI_BUNDLE';

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

/**
 * vitest globalSetup: bundles the CLI once for the run (esbuild, which tsx runs on; packages stay
 * external, so better-sqlite3 is the installed one). The bundle sits two folders under the
 * repository, as cli.ts does, so what the core finds from its own location (the package root,
 * node_modules) is the same. Without esbuild the children fall back to tsx.
 */
export default async function setup(): Promise<() => void> {
  const dir = join(ROOT, 'test-results', `cli-${process.pid}`);
  const outfile = join(dir, 'cli.mjs');
  try {
    const { build } = (await import('esbuild')) as typeof import('esbuild');
    mkdirSync(dir, { recursive: true });
    await build({ entryPoints: [CLI_SOURCE], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile, logLevel: 'warning' });
    process.env[ENV] = outfile;
  } catch (err) {
    console.warn(`test/helpers/cli-bundle.ts: children run the CLI through tsx (${(err as Error).message})`);
  }
  return () => {
    delete process.env[ENV];
    rmSync(dir, { recursive: true, force: true });
  };
}
