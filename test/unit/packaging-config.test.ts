// electron-builder.yml as electron-builder itself reads it: its loader and schema, its file
// matchers and node_modules collector (the package's contents), its asarUnpack filter and its
// icon resolver. Needs the built tree (npm run build; the shell is compiled here if missing),
// not the Electron binary.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import {
  ROOT,
  asarUnpackFilter,
  ensureShellBuilt,
  loadBuilderConfig,
  lockProductionClosure,
  packagedFiles,
  resolveIcon,
  transformedPackageJson,
  validateBuilderConfig,
  whyNotBuilt,
  type PackagedFile,
} from '../helpers/packaging.js';
import { ICNS_TYPES, ICO_SIZES, PNG_SIZES, generateIcons, pngSize } from '../../scripts/icons.mjs';

const skipReason = whyNotBuilt();
if (skipReason) console.warn(`test/unit/packaging-config.test.ts skipped: ${skipReason}`);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.isFile()) out.push(relative(ROOT, p).split(sep).join('/'));
  }
  return out;
}

function nameAtVersion(dir: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${pkg.name}@${pkg.version}`;
}

describe.skipIf(skipReason !== undefined)('electron-builder.yml, checked by electron-builder', () => {
  let config: any;
  let files: PackagedFile[];
  const temps: string[] = [];

  beforeAll(async () => {
    // npm test builds the core and the UI; the shell has its own tsconfig (it needs electron's types).
    ensureShellBuilt();
    generateIcons(); // dist/icons, as npm run dist does before electron-builder
    config = await loadBuilderConfig();
    files = await packagedFiles(config);
  });
  afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

  it('passes electron-builder’s schema, which does reject a broken copy', async () => {
    expect(config.appId).toBe('dev.agentrooms.desktop');
    expect(config.productName).toBe('Agent Rooms');
    expect(config.directories).toMatchObject({ output: 'release', buildResources: 'src-main/electron/resources' });
    await expect(validateBuilderConfig({ ...config, asar: 'yes' })).rejects.toThrow(/configuration\.asar/);
    await expect(validateBuilderConfig({ ...config, filez: ['dist/**'] })).rejects.toThrow(/filez/);
  });

  it('sets the targets for Linux (AppImage, deb), macOS (dmg) and Windows (nsis)', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    // The deb links the executable into /usr/bin: it must not shadow the agent-rooms CLI.
    expect(config.linux.executableName).toBe('agent-rooms-desktop');
  });

  it('the app starts from the shell, and the package.json it carries has no scripts or dev dependencies', async () => {
    expect(config.extraMetadata).toEqual({ main: 'dist/src-main/electron/main.js' });
    const pkg = await transformedPackageJson(config);
    expect(pkg.main).toBe('dist/src-main/electron/main.js');
    expect(pkg.type).toBe('module');
    expect(pkg).not.toHaveProperty('scripts');
    expect(pkg).not.toHaveProperty('devDependencies');
    expect(files.map((f) => f.rel)).toContain(pkg.main);
  });

  it('files: exactly the built core, shell and renderer, no sources, tests, maps or type definitions', () => {
    const app = files.filter((f) => !f.rel.startsWith('node_modules/')).map((f) => f.rel);
    const built = [
      ...walk(join(ROOT, 'dist/src-main')).filter((f) => /\.(js|cjs)$/.test(f)),
      ...walk(join(ROOT, 'dist/shared')).filter((f) => f.endsWith('.js')),
      ...walk(join(ROOT, 'dist/renderer')).filter((f) => !f.endsWith('.map')),
    ];
    expect(app.sort()).toEqual(['package.json', ...built].sort());
    for (const must of ['dist/src-main/core/cli.js', 'dist/src-main/core/start.js', 'dist/src-main/electron/main.js', 'dist/src-main/electron/preload.cjs', 'dist/renderer/index.html']) {
      expect(app).toContain(must);
    }
    expect(app.some((f) => f.startsWith('dist/renderer/assets/') && f.endsWith('.js'))).toBe(true);
    const all = files.map((f) => f.rel);
    expect(all.filter((f) => /^(test|src-main|src-renderer|shared|scripts|docs|bin|release|dist\/icons)\//.test(f))).toEqual([]);
    expect(all.filter((f) => /\.(map|ts|cts|mts)$/.test(f))).toEqual([]);
    expect(all.filter((f) => /(^|\/)node_modules\/.*\/(test|tests|__tests__)\//.test(f))).toEqual([]);
    expect(all.filter((f) => /^(electron-builder\.yml|package-lock\.json|tsconfig.*|vitest\.config\.ts|eslint\.config\.js)$/.test(f))).toEqual([]);
  });

  it('node_modules: the production dependency closure of package-lock.json, as electron-builder collects it', () => {
    const lock = lockProductionClosure();
    // The packages whose package.json is packaged are the ones electron-builder's collector found (the
    // files come from its list, walked once per run: test/helpers/packaging.ts). It may hoist a nested
    // copy, so compare packages (name@version), not paths.
    const packaged = new Set(files.filter((f) => /^(.*\/)?node_modules\/(@[^/]+\/)?[^/]+\/package\.json$/.test(f.rel)).map((f) => {
      const pkg = JSON.parse(readFileSync(f.src, 'utf8')) as { name: string; version: string };
      return `${pkg.name}@${pkg.version}`;
    }));
    expect(packaged).toEqual(new Set(lock.map(nameAtVersion)));
    const pkgJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const prodNames = new Set(lock.map((d) => nameAtVersion(d).replace(/@[^@]+$/, '')));
    for (const dev of Object.keys(pkgJson.devDependencies)) {
      if (prodNames.has(dev)) continue; // also needed at run time (e.g. picomatch's types are dev, picomatch is not)
      expect(files.some((f) => f.rel.startsWith(`node_modules/${dev}/`)), `dev dependency ${dev} in the package`).toBe(false);
    }
    for (const dep of Object.keys(pkgJson.dependencies)) expect(files.some((f) => f.rel === `node_modules/${dep}/package.json`), dep).toBe(true);
    // better-sqlite3: the compiled addon and its JS, not the SQLite sources or build leftovers.
    expect(files.filter((f) => f.rel.startsWith('node_modules/better-sqlite3/') && !f.rel.startsWith('node_modules/better-sqlite3/lib/')).map((f) => f.rel).sort()).toEqual([
      'node_modules/better-sqlite3/LICENSE',
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/better-sqlite3/package.json',
    ]);
  });

  it('asarUnpack takes better-sqlite3’s .node out of the asar, and nothing else', () => {
    const unpack = asarUnpackFilter(config);
    expect(files.filter(unpack).map((f) => f.rel)).toEqual(['node_modules/better-sqlite3/build/Release/better_sqlite3.node']);
  });

  it('icons: a PNG set for Linux, .icns for macOS, .ico for Windows, resolved by electron-builder', async () => {
    const set = await resolveIcon(config, config.linux.icon, 'set');
    expect(set.map((i) => i.size)).toEqual(PNG_SIZES);
    for (const i of set) expect(pngSize(readFileSync(i.file))).toEqual({ width: i.size, height: i.size });
    const [icns] = await resolveIcon(config, config.mac.icon, 'icns');
    expect(relative(ROOT, icns!.file)).toBe(join('dist', 'icons', 'icon.icns'));
    const [ico] = await resolveIcon(config, config.win.icon, 'ico');
    expect(relative(ROOT, ico!.file)).toBe(join('dist', 'icons', 'icon.ico'));
    expect(ico!.size).toBe(256); // electron-builder refuses an .ico under 256x256
  });

  it('the icon script writes valid ICO and ICNS containers around PNGs of the sizes they declare', () => {
    const out = mkdtempSync(join(tmpdir(), 'agent-rooms-icons-'));
    temps.push(out);
    generateIcons(undefined, out);
    expect(readdirSync(join(out, 'png')).sort()).toEqual(PNG_SIZES.map((s) => `${s}x${s}.png`).sort());

    const ico = readFileSync(join(out, 'icon.ico'));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, ICO_SIZES.length]);
    let end = 6 + 16 * ICO_SIZES.length;
    ICO_SIZES.forEach((size, i) => {
      const e = 6 + 16 * i;
      expect(ico[e] || 256).toBe(size);
      expect(ico[e + 1] || 256).toBe(size);
      const [len, off] = [ico.readUInt32LE(e + 8), ico.readUInt32LE(e + 12)];
      expect(off).toBe(end);
      expect(pngSize(ico.subarray(off, off + len))).toEqual({ width: size, height: size });
      end = off + len;
    });
    expect(end).toBe(ico.length);

    const icns = readFileSync(join(out, 'icon.icns'));
    expect(icns.toString('latin1', 0, 4)).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const blocks: Array<[string, number]> = [];
    for (let off = 8; off < icns.length; ) {
      const len = icns.readUInt32BE(off + 4);
      blocks.push([icns.toString('latin1', off, off + 4), pngSize(icns.subarray(off + 8, off + len)).width]);
      off += len;
    }
    expect(blocks).toEqual(ICNS_TYPES);
  });
});
