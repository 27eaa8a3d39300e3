import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ALL_TOOLS } from '../../src-main/core/capabilities.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Hosts gate approval on the MCP tool annotations (Codex asks before any tool without
 * readOnlyHint), so every tool declares all four hints and a title, and tools/list carries them.
 */
describe('tool annotations', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp();
  });
  afterAll(async () => s.stop());

  it('every tool declares a title and all four hints', () => {
    const missing = ALL_TOOLS.filter((t) => !t.title || !t.annotations || HINTS.some((h) => typeof t.annotations?.[h] !== 'boolean')).map((t) => t.name);
    expect(missing).toEqual([]);
  });

  it('the hints are consistent: read-only tools are neither destructive nor open-world', () => {
    for (const t of ALL_TOOLS) {
      if (t.annotations!.readOnlyHint) expect({ tool: t.name, destructive: t.annotations!.destructiveHint }).toEqual({ tool: t.name, destructive: false });
    }
    // Spot checks that the hints say what the tools do.
    const by = new Map(ALL_TOOLS.map((t) => [t.name, t.annotations!]));
    expect(by.get('whoami')).toMatchObject({ readOnlyHint: true });
    expect(by.get('read_board')).toMatchObject({ readOnlyHint: true });
    expect(by.get('send_message')).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(by.get('delete_file')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('tools/list gives every listed tool its title and annotations', async () => {
    const a = await s.agent('Annotated');
    const client = await s.connect(a.credential, 'codex');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    for (const t of tools) {
      const def = ALL_TOOLS.find((d) => d.name === t.name)!;
      expect({ name: t.name, title: t.title }).toEqual({ name: t.name, title: def.title });
      expect(t.annotations).toEqual(def.annotations);
    }
  });
});
