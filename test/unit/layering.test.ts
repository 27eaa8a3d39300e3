import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ESLint } from 'eslint';

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
});
