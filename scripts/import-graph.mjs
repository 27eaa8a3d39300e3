#!/usr/bin/env node
/**
 * The folder-level import graph of the core: which folder of src-main/core imports which,
 * the pairs that import each other and every cycle (a strongly connected group of folders).
 * Type-only imports count (they tie folders together as much as any other).
 *
 *   node scripts/import-graph.mjs [CORE_DIR] [--files]
 *
 * CORE_DIR defaults to src-main/core of this checkout; point it at another checkout's core to
 * compare (e.g. `git worktree add /tmp/g-before <commit>`). --files lists the importing files
 * of every edge. Root files are "(base)" or "(root)" as src-main/core/layering.mjs names them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { BASE_FILES, findCycles, folderOf } from '../src-main/core/layering.mjs';

const args = process.argv.slice(2);
const withFiles = args.includes('--files');
const coreDir = resolve(args.find((a) => !a.startsWith('--')) ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src-main', 'core'));

/** Every .ts file under the core. */
function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** from -> to -> importing files */
const edges = new Map();
const files = sources(coreDir);
for (const file of files) {
  const from = folderOf(relative(coreDir, file).split(sep).join('/'));
  for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const rel = relative(coreDir, resolve(dirname(file), ref.fileName)).split(sep).join('/');
    if (rel.startsWith('..')) continue; // shared/ and packages are outside the graph
    const to = folderOf(rel.replace(/\.js$/, '.ts'));
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const byFile = edges.get(from);
    if (!byFile.has(to)) byFile.set(to, new Set());
    byFile.get(to).add(relative(coreDir, file).split(sep).join('/'));
  }
}

const graph = Object.fromEntries([...edges].map(([from, tos]) => [from, [...tos.keys()].sort()]));
const shown = relative(process.cwd(), coreDir);
console.log(`folder import graph of ${shown.startsWith('..') ? coreDir : shown || '.'} (${files.length} files; root files: (base) = ${BASE_FILES.join(', ')}; (root) = the rest)`);
for (const from of Object.keys(graph).sort()) {
  console.log(`${from} -> ${graph[from].join(' ')}`);
  if (withFiles) for (const to of graph[from]) console.log(`    ${to}: ${[...edges.get(from).get(to)].sort().join(', ')}`);
}
const pairs = [];
for (const [a, tos] of Object.entries(graph)) for (const b of tos) if (a < b && graph[b]?.includes(a)) pairs.push(`${a}<->${b}`);
console.log(`mutual pairs ${pairs.length}${pairs.length ? ': ' + pairs.sort().join(', ') : ''}`);
const cycles = findCycles(graph);
console.log(`cycles ${cycles.length}${cycles.length ? ': ' + cycles.map((c) => `[${c.join(' ')}]`).join(', ') : ''}`);
