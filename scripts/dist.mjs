#!/usr/bin/env node
// `npm run dist` / `dist:linux` / `dist:dir`: the desktop installers with electron-builder.
//
// electron-builder needs two things from the network: the Electron release zip and, because
// better-sqlite3 is rebuilt from source for Electron's ABI, Electron's headers. Both are
// looked for here first (ELECTRON_OVERRIDE_DIST_PATH, ELECTRON_CACHE or the download cache,
// ~/.electron-gyp) and their download hosts probed, so that a machine that cannot reach them
// gets one line saying what is missing and how to provide it, instead of a stack from deep
// inside a download library. Only then does it build, generate the icons and package.
//
// Usage: node scripts/dist.mjs [--dir | --linux | --mac | --win] [--no-build] [--no-rebuild] [--output=DIR]
//   --no-rebuild  package node_modules as they are (only right when they are already built
//                 for Electron, e.g. after "npm run rebuild:electron"); no headers
//   --output=DIR  instead of release/
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const PREFIX = 'agent-rooms dist:';
const PROBE_TIMEOUT_MS = Number(process.env.AGENT_ROOMS_DIST_PROBE_TIMEOUT_MS) || 10_000;
const DEFAULT_MIRROR = 'https://github.com/electron/electron/releases/download/';
const DEFAULT_HEADERS = 'https://www.electronjs.org/headers';

/** Prints the one line and exits: the whole point of this wrapper. */
function fail(line) {
  process.stderr.write(`${PREFIX} ${line}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { mode: 'default', build: true, rebuild: true, output: undefined };
  for (const a of argv) {
    if (a === '--dir' || a === '--linux' || a === '--mac' || a === '--win') opts.mode = a.slice(2);
    else if (a === '--no-build') opts.build = false;
    else if (a === '--no-rebuild') opts.rebuild = false;
    else if (a.startsWith('--output=')) opts.output = resolve(a.slice('--output='.length));
    else fail(`unknown argument ${a} (use --dir, --linux, --mac, --win, --no-build, --no-rebuild, --output=DIR)`);
  }
  return opts;
}

const NODE_PLATFORM = { linux: 'linux', mac: 'darwin', win: 'win32' };

/** Which platform electron-builder will package for, as Electron's release names it. */
export function targetPlatform(mode, host = process.platform) {
  return NODE_PLATFORM[mode] ?? host;
}

function electronVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
}

/** The default cache of @electron/get, which electron-builder downloads Electron into. */
function electronGetCacheRoot(env) {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'electron');
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'electron', 'Cache');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'electron');
}

/** A zip in `dir` or one level down (@electron/get keeps one folder per download URL). */
function findZip(dir, zipName) {
  if (!dir || !existsSync(dir)) return undefined;
  if (existsSync(join(dir, zipName))) return join(dir, zipName);
  for (const sub of readdirSync(dir, { withFileTypes: true })) {
    if (sub.isDirectory() && existsSync(join(dir, sub.name, zipName))) return join(dir, sub.name, zipName);
  }
  return undefined;
}

/** Whether `url` answers at all (any HTTP status but 404/410 counts: the host is there). */
async function probe(url) {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (res.status === 404 || res.status === 410) return `HTTP ${res.status}`;
    return undefined;
  } catch (err) {
    const cause = err?.cause;
    return cause?.code ?? cause?.message ?? (err?.name === 'TimeoutError' ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s` : err?.message ?? String(err));
  }
}

/**
 * Where electron-builder will get Electron: `{electronDist}` (a folder or zip it uses as is), or
 * `{download}` (it downloads; the host answered), or `{missing}` (the line to print).
 */
export async function resolveElectron(env, version, platform, arch) {
  const zipName = `electron-v${version}-${platform}-${arch}.zip`;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    if (!existsSync(override)) return { missing: `ELECTRON_OVERRIDE_DIST_PATH=${override} does not exist: point it at an unpacked Electron ${version} (the folder holding the electron binary), or unset it to use ELECTRON_CACHE or a download` };
    if (platform !== process.platform) return { missing: `ELECTRON_OVERRIDE_DIST_PATH is an Electron for ${process.platform}, the target is ${platform}: put ${zipName} in ELECTRON_CACHE instead` };
    return { electronDist: override };
  }
  // The electron package's own binary, once fetched (npx install-electron), is this version.
  const fetched = join(ROOT, 'node_modules', 'electron', 'dist');
  if (platform === process.platform && existsSync(join(fetched, 'version')) && readFileSync(join(fetched, 'version'), 'utf8').trim().replace(/^v/, '') === version) {
    return { electronDist: fetched };
  }
  for (const dir of [env.ELECTRON_CACHE, electronGetCacheRoot(env)]) {
    const zip = findZip(dir, zipName);
    if (zip) return { electronDist: zip };
  }
  const mirror = env.ELECTRON_MIRROR || DEFAULT_MIRROR;
  const customDir = (env.ELECTRON_CUSTOM_DIR || 'v{{ version }}').replace(/\{\{\s*version\s*\}\}/g, version);
  const url = `${mirror.replace(/\/?$/, '/')}${customDir}/${zipName}`;
  const why = await probe(url);
  if (!why) return { download: url };
  return {
    missing:
      `the Electron ${version} download cannot be reached (${url}: ${why}): ` +
      `put ${zipName} in a folder named by ELECTRON_CACHE, or set ELECTRON_OVERRIDE_DIST_PATH (electronDist) to an unpacked Electron ${version}, ` +
      `or set ELECTRON_MIRROR to a mirror that has it`,
  };
}

/** node-gyp's folder of Electron headers, as @electron/rebuild uses it. */
export function electronGypDir(version) {
  return join(homedir(), '.electron-gyp', version);
}

/**
 * Electron's headers, needed to rebuild better-sqlite3 for Electron: `{ok}` if in
 * ~/.electron-gyp (installed there from ELECTRON_HEADERS_MIRROR if set), `{missing}` else.
 * @electron/rebuild, as electron-builder calls it, only ever downloads from electronjs.org, so
 * a mirror is used by installing the headers into its cache folder beforehand.
 */
export async function resolveHeaders(env, version) {
  const dir = electronGypDir(version);
  if (existsSync(join(dir, 'include', 'node', 'node_version.h'))) return { ok: dir };
  const distUrl = (env.ELECTRON_HEADERS_MIRROR || DEFAULT_HEADERS).replace(/\/$/, '');
  const url = `${distUrl}/v${version}/node-v${version}-headers.tar.gz`;
  const why = await probe(url);
  const missing =
    `Electron ${version} headers (to rebuild better-sqlite3 for Electron) are not in ${dir} and cannot be reached (${url}: ${why}): ` +
    `set ELECTRON_HEADERS_MIRROR to a mirror of ${DEFAULT_HEADERS}, or copy ${dir} from a machine where "npm run rebuild:electron" has run`;
  if (why) return { missing };
  if (env.ELECTRON_HEADERS_MIRROR) {
    const gyp = join(ROOT, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    const r = spawnSync(process.execPath, [gyp, 'install', `--target=${version}`, `--dist-url=${distUrl}`, `--devdir=${dirname(dir)}`], {
      env: buildEnv(env),
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (r.status !== 0) return { missing: missing.replace(`: ${why}`, `: node-gyp install failed: ${(r.stderr || '').trim().split('\n').pop()}`) };
  }
  return { ok: dir };
}

/**
 * The environment the build runs in. An npm `nodedir` setting (npm passes it on as
 * npm_config_nodedir) makes node-gyp compile against that Node's headers instead of
 * Electron's, which yields an addon Electron refuses to load: drop it.
 */
export function buildEnv(env) {
  const out = { ...env };
  for (const k of Object.keys(out)) if (k.toLowerCase() === 'npm_config_nodedir') delete out[k];
  return out;
}

const NETWORK_FAILURE = /ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|getaddrinfo|socket hang up|unable to get local issuer|self[- ]signed certificate|Response code \d{3}|ERR_NON_2XX_3XX_RESPONSE|fetch failed/i;

/**
 * The one line for an electron-builder failure that is a download that could not be made, or
 * undefined for any other failure. What was being fetched is told by the URL and the message,
 * not the stack (whose file names would match anything).
 */
export function downloadFailureLine(err, version) {
  const url = String(err?.options?.url?.href ?? err?.options?.url ?? err?.url ?? '');
  const text = `${err?.message ?? err}\n${url}\n${err?.code ?? ''}\n${err?.cause?.code ?? ''}\n${err?.cause?.message ?? ''}`;
  const m = NETWORK_FAILURE.exec(text);
  if (!m) return undefined;
  const code = /\b(ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH)\b/.exec(text)?.[1] ?? m[0];
  const what = url ? `${code} at ${url}` : code;
  if (/electron-builder-binaries|BINARIES_MIRROR/i.test(text)) {
    return `a packaging tool of electron-builder cannot be downloaded (${what}): set ELECTRON_BUILDER_BINARIES_MIRROR to a mirror of https://github.com/electron-userland/electron-builder-binaries/releases/download/, or fill ELECTRON_BUILDER_CACHE on a machine that can reach it (npm run dist:linux there) and copy it here`;
  }
  if (/node-gyp|electron-gyp|headers|rebuild/i.test(text)) {
    return `Electron ${version} headers cannot be downloaded (${what}): set ELECTRON_HEADERS_MIRROR to a mirror of ${DEFAULT_HEADERS}, or copy ${electronGypDir(version)} from a machine that has them`;
  }
  return `the Electron ${version} download failed (${what}): put the release zip in ELECTRON_CACHE, set ELECTRON_OVERRIDE_DIST_PATH (electronDist) to an unpacked Electron ${version}, or set ELECTRON_MIRROR to a mirror that has it`;
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, stdio: 'inherit' });
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/**
 * electron-builder rebuilds better-sqlite3 for Electron in place, in node_modules; the tests
 * and `agent-rooms serve` need the Node build there. Keep a copy and put it back afterwards
 * (by rename, so a hard-linked node_modules is never written through).
 */
function keepNodeAddon() {
  const addon = join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(addon)) return () => {};
  const saved = join(ROOT, 'release', '.better_sqlite3.node-for-node');
  mkdirSync(dirname(saved), { recursive: true });
  copyFileSync(addon, saved);
  return () => {
    mkdirSync(dirname(addon), { recursive: true });
    renameSync(saved, addon);
    process.stderr.write(`${PREFIX} better-sqlite3 in node_modules is back to the build it had before (the package holds the one built for Electron)\n`);
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const version = electronVersion();
  const platform = targetPlatform(opts.mode);
  const arch = process.arch;
  const env = buildEnv(process.env);

  const electron = await resolveElectron(process.env, version, platform, arch);
  if ('missing' in electron) fail(electron.missing);
  // The native rebuild compiles on this machine, so it needs headers only for its own platform.
  if (opts.rebuild && platform === process.platform) {
    const headers = await resolveHeaders(process.env, version);
    if ('missing' in headers) fail(headers.missing);
  }

  if (opts.build) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    run(npm, ['run', 'build'], env);
    run(npm, ['run', 'build:desktop'], env);
  }
  for (const f of ['dist/src-main/core/cli.js', 'dist/src-main/electron/main.js', 'dist/renderer/index.html']) {
    if (!existsSync(join(ROOT, f))) fail(`${f} is not built: run "npm run build && npm run build:desktop" (or drop --no-build)`);
  }
  const { generateIcons } = await import('./icons.mjs');
  generateIcons();

  const { build, Platform } = require('electron-builder');
  const platformOf = { linux: Platform.LINUX, darwin: Platform.MAC, win32: Platform.WINDOWS }[platform];
  const targets = opts.mode === 'dir' ? platformOf.createTarget('dir') : platformOf.createTarget();
  const config = {
    ...('electronDist' in electron ? { electronDist: electron.electronDist } : {}),
    ...(opts.rebuild ? {} : { npmRebuild: false }),
    ...(opts.output ? { directories: { output: opts.output } } : {}),
  };
  // electron-builder and the rebuild it forks read process.env itself.
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  const restore = opts.rebuild ? keepNodeAddon() : () => {};
  let failure;
  try {
    const artifacts = await build({ projectDir: ROOT, targets, config, publish: 'never' });
    const out = opts.output ?? join(ROOT, 'release');
    const made = artifacts.length ? artifacts : readdirSync(out).filter((n) => !n.startsWith('.') && statSync(join(out, n)).isDirectory()).map((n) => join(out, n));
    process.stdout.write(`${PREFIX} done: ${made.join(', ')}\n`);
  } catch (err) {
    // The full error stays available for a failure this wrapper does not explain.
    if (process.env.AGENT_ROOMS_DIST_DEBUG) console.error(err);
    failure = downloadFailureLine(err, version) ?? `electron-builder failed: ${err?.message ?? err}`;
  } finally {
    restore();
  }
  if (failure) fail(failure);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
