import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { ALLOWED, CAPABILITIES, allowedGraphMarkdown, findCycles, tableOwnersMarkdown } from '../../src-main/core/layering.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function restrictedImports(code: string, virtualPath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, virtualPath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layering lint rule', () => {
  it('forbids electron in the core', async () => {
    expect(await restrictedImports("import 'electron';\n", 'src-main/core/layering-probe.ts')).toHaveLength(1);
    expect(await restrictedImports("import { app } from 'electron';\nexport const a = app;\n", 'src-main/core/rooms/layering-probe.ts')).toHaveLength(1);
  });

  it('forbids Node built-ins and electron in the renderer and shared code', async () => {
    expect(await restrictedImports("import fs from 'node:fs';\nexport const f = fs;\n", 'src-renderer/src/layering-probe.ts')).toHaveLength(1);
    expect(await restrictedImports("import { join } from 'path';\nexport const j = join;\n", 'src-renderer/src/layering-probe.tsx')).toHaveLength(1);
    expect(await restrictedImports("import 'electron';\n", 'src-renderer/src/layering-probe.ts')).toHaveLength(1);
    expect(await restrictedImports("import { createHash } from 'node:crypto';\nexport const h = createHash;\n", 'shared/layering-probe.ts')).toHaveLength(1);
  });

  it('allows electron in src-main/electron/ and Node built-ins in the core', async () => {
    expect(await restrictedImports("import { app } from 'electron';\nexport const a = app;\n", 'src-main/electron/layering-probe.ts')).toEqual([]);
    expect(await restrictedImports("import fs from 'node:fs';\nexport const f = fs;\n", 'src-main/core/layering-probe.ts')).toEqual([]);
  });

  it('lets the desktop shell import the core only through its public entry (start.ts) and shared/', async () => {
    expect(await restrictedImports("import { primaryOwner } from '../core/owners/store.js';\nexport const p = primaryOwner;\n", 'src-main/electron/layering-probe.ts')).toHaveLength(1);
    expect(await restrictedImports("import type { CoreEvent } from '../core/bus.js';\nexport type E = CoreEvent;\n", 'src-main/electron/layering-probe.ts')).toHaveLength(1);
    expect(await restrictedImports("import { startCore } from '../core/start.js';\nexport const s = startCore;\n", 'src-main/electron/layering-probe.ts')).toEqual([]);
    expect(await restrictedImports("import type { CoreEvent } from '../../shared/core-events.js';\nexport type E = CoreEvent;\n", 'src-main/electron/layering-probe.ts')).toEqual([]);
  });
});

describe('the layering inside the core (local/code-layering, src-main/core/layering.mjs)', () => {
  async function layering(code: string, virtualPath: string, engine = eslint): Promise<string[]> {
    const [result] = await engine.lintText(code, { filePath: join(ROOT, virtualPath) });
    return result!.messages.filter((m) => m.ruleId === 'local/code-layering').map((m) => m.message);
  }

  it('refuses an import outside the allowed graph, naming both folders and what is allowed', async () => {
    const [message, ...rest] = await layering("import { getTaskRow } from '../tasks/store.js';\nexport const f = getTaskRow;\n", 'src-main/core/rooms/layering-probe.ts');
    expect(rest).toEqual([]);
    expect(message).toMatch(/^Bad layering: rooms\/ may not import tasks\/ \(allowed: .*agents\/, owners\/\)/);
    // Lower layers may not reach up either: the transports import no capability, the base no folder above it.
    expect(await layering("import { getOwner } from '../owners/store.js';\nexport const g = getOwner;\n", 'src-main/core/http/layering-probe.ts')).toHaveLength(1);
    expect(await layering("import { pendingMentions } from '../inbox/store.js';\nexport const p = pendingMentions;\n", 'src-main/core/mcp/layering-probe.ts')).toHaveLength(1);
    expect(await layering("import { getRoom } from './rooms/store.js';\nexport const r = getRoom;\n", 'src-main/core/core.ts')).toHaveLength(1);
  });

  it('counts type-only imports, re-exports and import() too', async () => {
    expect(await layering("import type { TaskRow } from '../tasks/store.js';\nexport type T = TaskRow;\n", 'src-main/core/rooms/layering-probe.ts')).toHaveLength(1);
    expect(await layering("export { getTaskRow } from '../tasks/store.js';\n", 'src-main/core/rooms/layering-probe.ts')).toHaveLength(1);
    expect(await layering("export const load = () => import('../tasks/store.js');\n", 'src-main/core/rooms/layering-probe.ts')).toHaveLength(1);
  });

  it('accepts an allowed import, imports inside a folder, and anything from the composition root', async () => {
    expect(await layering("import { getAgentByPlate } from '../agents/store.js';\nexport const a = getAgentByPlate;\n", 'src-main/core/rooms/layering-probe.ts')).toEqual([]);
    expect(await layering("import type { Core } from '../core.js';\nimport { AppError } from '../errors/app-error.js';\nexport type C = Core;\nexport const E = AppError;\n", 'src-main/core/rooms/layering-probe.ts')).toEqual([]);
    expect(await layering("import { getRoom } from './store.js';\nimport type { CoreEvent } from '../../../shared/core-events.js';\nexport const r = getRoom;\nexport type E = CoreEvent;\n", 'src-main/core/rooms/layering-probe.ts')).toEqual([]);
    expect(await layering("import { getTaskRow } from './tasks/store.js';\nexport const t = getTaskRow;\n", 'src-main/core/capabilities.ts')).toEqual([]);
  });

  it('refuses a folder the allowed graph does not know', async () => {
    const [message] = await layering("import { getRoom } from '../rooms/store.js';\nexport const r = getRoom;\n", 'src-main/core/newcap/layering-probe.ts');
    expect(message).toMatch(/^Bad layering: newcap\/ is not in the allowed graph/);
  });

  it('the allowed graph has no cycle, and each capability imports only capabilities listed before it', () => {
    expect(findCycles(ALLOWED)).toEqual([]);
    const order = Object.keys(CAPABILITIES);
    for (const [cap, deps] of Object.entries(CAPABILITIES)) for (const d of deps) expect(order.indexOf(d), `${cap} -> ${d}`).toBeLessThan(order.indexOf(cap));
  });

  it('finds a planted cycle, and the rule fails every file of the folders in it', async () => {
    const planted = { ...ALLOWED, rooms: [...ALLOWED.rooms!, 'tasks'] };
    const cycles = findCycles(planted);
    expect(cycles.length).toBe(1);
    expect(cycles[0]).toEqual(expect.arrayContaining(['rooms', 'tasks']));
    expect(findCycles({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })).toEqual([['a', 'b', 'c']]);
    const withCycle = new ESLint({ cwd: ROOT, overrideConfig: [{ files: ['src-main/core/**/*.ts'], rules: { 'local/code-layering': ['error', { allowed: planted }] } }] });
    const messages = await layering("import { getTaskRow } from '../tasks/store.js';\nexport const f = getTaskRow;\n", 'src-main/core/rooms/layering-probe.ts', withCycle);
    expect(messages).toEqual([expect.stringMatching(/^Bad layering: the allowed graph has a cycle between .*rooms\/.*tasks\//)]);
  });

  it('docs/architecture.md shows the allowed graph and the table owners as they are', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(docs).toContain(allowedGraphMarkdown());
    expect(docs).toContain(tableOwnersMarkdown());
  });
});
