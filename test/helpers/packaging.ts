// What electron-builder would put in the desktop package, computed by electron-builder's own
// code (app-builder-lib, pinned with electron-builder) without running a build: its config
// loading and schema validation, its `files` matchers and walker, its production node_modules
// collector (as the package's files), its package.json transformer and its asarUnpack filter.
// Only the Electron binary and the native rebuild are left out, which is what needs the network.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

// app-builder-lib is CommonJS without an exports map: its internals are reached by path.
const configLib = require('app-builder-lib/out/util/config/config.js');
const fileMatcherLib = require('app-builder-lib/out/fileMatcher.js');
const appFileCopier = require('app-builder-lib/out/util/appFileCopier.js');
const fileTransformer = require('app-builder-lib/out/fileTransformer.js');
const iconConverter = require('app-builder-lib/out/util/iconConverter.js');
const collector = require('app-builder-lib/out/node-module-collector/index.js');
const builderUtil = require('builder-util');
const { Platform } = require('app-builder-lib/out/core.js');

/** The app's folder inside the package (resources/app.asar), as a path to lay files under. */
const DEST = join(ROOT, '.packaged-app');

export interface PackagedFile {
  /** where the file is in this checkout */
  src: string;
  /** its path inside the app (app.asar, or app.asar.unpacked for unpacked files) */
  rel: string;
  stat: Stats;
}

/** Whether `npm run build` has run (the core and the UI); the packaging tests need it. */
export function whyNotBuilt(): string | undefined {
  const ok = existsSync(join(ROOT, 'dist/src-main/core/cli.js')) && existsSync(join(ROOT, 'dist/renderer/index.html'));
  return ok ? undefined : 'the core and UI are not built (npm run build)';
}

/**
 * Compiles the shell (npm run build:desktop; npm test's build does not) if it is missing. Test
 * files run in parallel, so one compiles under a lock folder and the others wait for it, rather
 * than reading files another tsc is writing. Only the shell's own files are compiled, without
 * type checking (`--noCheck --noResolve`): the same files as `npm run build:desktop` writes for
 * src-main/electron, byte for byte, in 1 s instead of 12 to 23 s, which went to checking and
 * emitting again the whole core the shell imports (npm test's build has written it to dist/).
 * `npm run lint` type-checks the shell (`tsc -p tsconfig.electron.json --noEmit`) before the tests run.
 */
export function ensureShellBuilt(): void {
  const main = join(ROOT, 'dist/src-main/electron/main.js');
  if (existsSync(main)) return;
  const lock = join(ROOT, 'dist', '.shell-build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  try {
    mkdirSync(lock);
  } catch {
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; existsSync(lock) && waited < 180_000; waited += 200) Atomics.wait(sleeper, 0, 0, 200);
    if (!existsSync(main)) throw new Error('the shell did not build (npm run build:desktop)');
    return;
  }
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.electron.json', '--noCheck', '--noResolve'], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** electron-builder.yml loaded and validated by electron-builder (throws on a schema error). */
export async function loadBuilderConfig(): Promise<any> {
  const config = await configLib.getConfig(ROOT, join(ROOT, 'electron-builder.yml'), null);
  await configLib.validateConfiguration(config, new builderUtil.DebugLogger(false));
  return config;
}

/** Validates any configuration object with electron-builder's schema. */
export async function validateBuilderConfig(config: unknown): Promise<void> {
  await configLib.validateConfiguration(config, new builderUtil.DebugLogger(false));
}

/**
 * The parts of electron-builder's Packager/PlatformPackager that file collection reads. The
 * real ones are only created by a build, which downloads Electron; these hold the same values
 * a Linux build of this project has.
 */
function platformPackagerFor(config: any, tmp: any) {
  const metadata = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const info = {
    projectDir: ROOT,
    appDir: ROOT,
    buildResourcesDir: resolve(ROOT, config.directories.buildResources),
    isPrepackedAppAsar: false,
    areNodeModulesHandledExternally: false,
    config,
    debugLogger: new builderUtil.DebugLogger(false),
    tempDirManager: tmp,
    metadata,
    originalMetadata: metadata,
    nodePackageName: metadata.name,
    appInfo: { type: metadata.type },
    getWorkspaceRoot: async () => ROOT,
    getPackageManager: async () => collector.PM.NPM,
  };
  return { info, config, platform: Platform.LINUX, platformSpecificBuildOptions: config.linux ?? {} };
}

/**
 * Every file the package's app folder would hold, with electron-builder's own matchers: computed once
 * per test run. Its node_modules collector runs `npm ls` over the whole tree (4 to 9 s on a 2-core
 * machine), which three packaging files needed, one of them twice. The first file to ask computes the
 * list under a lock folder and leaves it in the run's folder (the CLI bundle's, test/helpers/cli-bundle.ts,
 * removed when the run ends), keyed by the configuration; the others read it and stat the files again.
 * Without that folder (no global setup) it is computed at every call.
 */
export async function packagedFiles(config: any): Promise<PackagedFile[]> {
  const bundle = process.env.AGENT_ROOMS_TEST_CLI_BUNDLE;
  if (!bundle || !existsSync(dirname(bundle))) return computePackagedFiles(config);
  const key = createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16);
  const file = join(dirname(bundle), `packaged-files-${key}.json`);
  const lock = `${file}.lock`;
  const read = () =>
    (JSON.parse(readFileSync(file, 'utf8')) as Array<Omit<PackagedFile, 'stat'>>).map((f) => ({ ...f, stat: statSync(f.src) }));
  // A holder that died leaves its lock: after this long, compute it here instead of waiting on.
  const giveUpAt = Date.now() + 180_000;
  for (;;) {
    if (existsSync(file)) return read();
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > giveUpAt) return computePackagedFiles(config);
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      if (existsSync(file)) return read();
      const files = await computePackagedFiles(config);
      writeFileSync(`${file}.partial`, JSON.stringify(files.map(({ src, rel }) => ({ src, rel }))));
      renameSync(`${file}.partial`, file);
      return files;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function computePackagedFiles(config: any): Promise<PackagedFile[]> {
  const tmp = new builderUtil.TmpDir('agent-rooms-packaging-test');
  try {
    const pp = platformPackagerFor(config, tmp);
    const expand = (s: string) => s;
    const outDir = resolve(ROOT, config.directories.output);
    const main = fileMatcherLib.getMainFileMatchers(ROOT, DEST, expand, pp.platformSpecificBuildOptions, pp, outDir, false);
    const sets = await appFileCopier.computeFileSets(main, null, pp, false);
    const moduleMatcher = fileMatcherLib.getNodeModuleFileMatcher(ROOT, DEST, expand, pp.platformSpecificBuildOptions, pp.info);
    sets.push(...(await appFileCopier.computeNodeModuleFileSets(pp, moduleMatcher)));
    const out: PackagedFile[] = [];
    for (const set of sets) {
      for (const file of set.files as string[]) {
        const stat = set.metadata.get(file) as Stats | undefined;
        if (!stat || !stat.isFile()) continue; // directories are created for files; no symlinks here
        out.push({ src: file, rel: relative(DEST, appFileCopier.getDestinationPath(file, set)).split(sep).join('/'), stat });
      }
    }
    return out.sort((a, b) => (a.rel < b.rel ? -1 : 1));
  } finally {
    await tmp.cleanup();
  }
}

/** electron-builder's asarUnpack filter, called the way its asar packer calls it. */
export function asarUnpackFilter(config: any): (file: PackagedFile) => boolean {
  const matchers = fileMatcherLib.getFileMatchers(config, 'asarUnpack', DEST, {
    macroExpander: (s: string) => s,
    customBuildOptions: config.linux ?? {},
    globalOutDir: resolve(ROOT, config.directories.output),
    defaultSrc: ROOT,
  });
  if (!matchers || matchers.length === 0) return () => false;
  const filter = matchers[0].createFilter();
  return (f) => filter(f.src, f.stat) === true;
}

/**
 * The production dependency closure from package-lock.json: the app's `dependencies`, then
 * each package's dependencies and optional dependencies that are installed, resolved the
 * way Node resolves them (the nearest node_modules up the tree).
 */
export function lockProductionClosure(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, any> };
  const pkgs = lock.packages;
  const seen = new Set<string>();
  const resolveFrom = (from: string, name: string): string | undefined => {
    let dir = from;
    for (;;) {
      const candidate = (dir ? `${dir}/` : '') + `node_modules/${name}`;
      if (pkgs[candidate]) return candidate;
      if (!dir) return undefined;
      const i = dir.lastIndexOf('/node_modules/');
      dir = i < 0 ? '' : dir.slice(0, i);
    }
  };
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const p = pkgs[key];
    const deps = { ...(p.dependencies ?? {}), ...(p.optionalDependencies ?? {}) };
    for (const name of Object.keys(deps)) {
      const at = resolveFrom(key, name);
      if (at) visit(at);
      else if (!(p.optionalDependencies && name in p.optionalDependencies)) throw new Error(`${key} needs ${name}, which package-lock.json does not hold`);
    }
  };
  visit('');
  seen.delete('');
  return [...seen].sort();
}

/** electron-builder's package.json transformer: extraMetadata applied, scripts and devDependencies dropped. */
export async function transformedPackageJson(config: any): Promise<Record<string, unknown>> {
  const transform = fileTransformer.createTransformer(ROOT, config, config.extraMetadata, null);
  const out = await transform(join(ROOT, 'package.json'));
  return JSON.parse(out == null ? readFileSync(join(ROOT, 'package.json'), 'utf8') : String(out));
}

/**
 * Lays the app folder out in `dest` as electron-builder does before packing it into the asar:
 * the files it selects, at their destinations, each passed through its transformer (package.json
 * gets extraMetadata; node_modules package.json files are cleaned). Copies, never installs.
 */
export async function assembleApp(config: any, dest: string, files?: PackagedFile[]): Promise<PackagedFile[]> {
  const list = files ?? (await packagedFiles(config));
  const transform = fileTransformer.createTransformer(ROOT, config, config.extraMetadata, null);
  for (const f of list) {
    const to = join(dest, f.rel);
    mkdirSync(dirname(to), { recursive: true });
    const changed = await transform(f.src);
    if (changed == null) copyFileSync(f.src, to);
    else writeFileSync(to, changed);
  }
  return list;
}

/** Resolves a platform's configured icon with electron-builder's icon resolver. */
export async function resolveIcon(config: any, source: string, format: 'set' | 'ico' | 'icns'): Promise<Array<{ file: string; size: number }>> {
  // Only a conversion writes here, and none is needed for the icons we ship (the test says so).
  const outDir = join(tmpdir(), `agent-rooms-icon-check-${process.pid}-${format}`);
  const r = await iconConverter.convertIcon({
    sources: [source],
    fallbackSources: [],
    roots: [resolve(ROOT, config.directories.buildResources), ROOT],
    format,
    outDir,
  });
  if (r.error != null) throw new Error(r.error);
  if (r.isFallback) throw new Error(`icon ${source} not found: electron-builder would fall back to its default`);
  return r.icons;
}
