import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOST_ADAPTERS, hostAdapter } from '../../src-main/core/hosts/adapter.js';
import { HOSTS, MCP_HOSTS, mcpServerName } from '../../shared/hosts.js';
import { connectPlan } from '../../shared/host-connect.js';
import { presetNamed, RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';
import { transcriptFormatOf } from '../../src-main/core/wakes/transcript.js';
import { hostParam } from '../../src-main/core/wakes/service.js';

/**
 * One host adapter per host (docs/hosts.md "Adding a host"): every adapter is complete and
 * agrees with its pure part in shared/hosts.ts, and no other file of the product names a host,
 * so adding one is its adapter file, its row in shared/hosts.ts and its test.
 */

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const CREDENTIAL = 'ark_TESTCREDENTIAL0123456789abcdefghijklmnopq';
const SEMVER = /^\d+\.\d+\.\d+$/;

describe('host adapters', () => {
  it('the core adapters and the window list the same hosts, in the same order, each once', () => {
    expect(HOST_ADAPTERS.map((h) => h.id)).toEqual(HOSTS.map((h) => h.id));
    for (const key of ['id', 'cli', 'preset', 'title'] as const) {
      const values = HOST_ADAPTERS.map((h) => h[key]);
      expect(new Set(values).size, `${key} is unique`).toBe(values.length);
    }
    expect(Object.keys(RUNNER_PRESETS)).toEqual(HOST_ADAPTERS.map((h) => h.preset));
  });

  for (const h of HOST_ADAPTERS) {
    describe(h.id, () => {
      it('is complete: title, CLI, preset, version, connect, doctor, stream, quirks', () => {
        const info = HOSTS.find((x) => x.id === h.id)!;
        expect(h.title).toBe(info.title);
        expect(h.cli).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(h.presetDef).toMatchObject({ host: h.id, command: h.cli });
        expect(h.presetDef.args.length).toBeGreaterThan(0);
        expect(h.version.min).toMatch(SEMVER);
        expect(h.version.re.test(`${h.cli} 1.2.3`)).toBe(true);
        expect(Array.isArray(h.connectEnv)).toBe(true);
        for (const n of h.connectEnv) expect(n).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(typeof h.register).toBe('function');
        expect(typeof h.configEntry).toBe('function');
        expect(h.quirks.length).toBeGreaterThan(0);
        expect(['generic', ...MCP_HOSTS]).toContain(h.mcpResource);
        // The preset is found by its name and every alias, and the runner route takes the host.
        expect(presetNamed(h.preset)).toBe(h.preset);
        for (const a of h.presetAliases) expect(presetNamed(a)).toBe(h.preset);
        expect(hostParam(h.id)).toBe(h.id);
        // The preset's output is read the way the adapter says, and an adapter that reads its own events can.
        const format = transcriptFormatOf(h.id, h.preset, h.presetDef.args);
        expect(format).toBe(h.streamFormat(h.presetDef.args, true));
        if (format === 'json-lines') expect(typeof h.transcriptEvent).toBe('function');
      });

      it('its connect plan registers the core profile URL under the agent server name, with no secret on a command it runs', () => {
        const plan = connectPlan({ host: h.id, plate: 'ADA-AGT-K2Q7MZ', baseUrl: 'http://127.0.0.1:7878', credential: CREDENTIAL, tools: 'core' });
        expect(plan.server).toBe(mcpServerName('ADA-AGT-K2Q7MZ'));
        expect(plan.url).toBe(`http://127.0.0.1:7878${h.mcpResource === 'generic' ? '/mcp' : `/mcp/${h.mcpResource}`}?tools=core`);
        expect(plan.writes.length + plan.runs.length).toBeGreaterThan(0);
        for (const run of plan.runs) expect(run.join(' ')).not.toContain(CREDENTIAL);
        for (const w of plan.writes) expect(w.file).toMatch(/^~\//);
        // The credential goes into a file connect writes privately (0600); another write may name it by variable (Qwen Code's settings.json).
        if (plan.writes.length) expect(plan.writes.some((w) => JSON.stringify(w).includes(CREDENTIAL))).toBe(true);
        // Nothing in the preset itself carries a credential: runs get theirs in the environment.
        expect(h.presetDef.args.join(' ')).not.toMatch(/ark_/);
      });
    });
  }

  it('docs/hosts.md has a section for every host and names the version its preset was checked with', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'hosts.md'), 'utf8');
    for (const h of HOST_ADAPTERS) {
      expect(docs, `a "## ${h.title}" section`).toMatch(new RegExp(`^## ${h.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'm'));
      if (SEMVER.test(h.version.checked)) expect(docs, `${h.title}: the version checked`).toContain(h.version.checked);
    }
  });

  it('an unknown host is refused by the runner route with the list of hosts', () => {
    expect(hostAdapter('no-such-host')).toBeUndefined();
    expect(() => hostParam('no-such-host')).toThrow(new RegExp(HOST_ADAPTERS.map((h) => h.id).join(', ')));
  });
});

/** Every .ts/.tsx/.mjs file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'node_modules' || n === 'dist') return [];
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(ts|tsx|mjs)$/.test(n) ? [p] : [];
  });
}

/**
 * Where a host's name may still be written as a literal outside its adapter, and why: the
 * specification binds the channel push and the MCP resources themselves to `claude-code` and the
 * other host-bound resources (docs/hosts.md, the hosts table's MCP resource), which are not host adapters.
 */
const ALLOWED: Record<string, string> = {
  'src-main/core/mcp/handler.ts': 'the claude-code resource declares the channel capability (specification)',
  'src-main/core/wakes/channel.ts': 'channel push goes to /mcp/claude-code sessions only (specification)',
  'src-main/core/wakes/dispatcher.ts': 'a channel push queues on the claude-code key (specification)',
  'shared/schemas/agents.ts': "the specification's host-bound MCP URLs of a minted credential",
  'src-main/electron/shell.ts': "the desktop menu's Copy Claude Code command",
};

describe('no file but the adapters names a host', () => {
  it('lists every host literal outside hosts/<id>.ts, shared/hosts.ts, migrations and tests, and each is an allowed one', () => {
    const ids = HOST_ADAPTERS.flatMap((h) => [h.id, h.cli, h.preset]);
    const literal = new RegExp(`['"\`](${ids.map((s) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')).join('|')})['"\`]`, 'g');
    const adapterFiles = new Set(['src-main/core/hosts/adapter.ts', 'src-main/core/hosts/files.ts', 'shared/hosts.ts', ...HOST_ADAPTERS.map((h) => `src-main/core/hosts/${h.id}.ts`)]);
    const found: Record<string, string[]> = {};
    for (const dir of ['src-main', 'shared', 'src-renderer/src']) {
      for (const file of filesUnder(join(ROOT, dir))) {
        const rel = relative(ROOT, file);
        if (adapterFiles.has(rel) || rel.includes('/db/migrations/')) continue;
        const text = readFileSync(file, 'utf8');
        // Comments say what they like; code is what is checked.
        const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
        const hits = [...code.matchAll(literal)].map((m) => m[1]!);
        if (hits.length) found[rel] = hits;
      }
    }
    console.log(`host literals outside the adapters: ${Object.entries(found).map(([f, h]) => `${f} (${h.length}: ${[...new Set(h)].join(', ')})`).join('; ') || 'none'}`);
    expect(Object.keys(found).filter((f) => !(f in ALLOWED)), 'files naming a host outside its adapter').toEqual([]);
    for (const [f, hits] of Object.entries(found)) expect(new Set(hits), `${f}: ${ALLOWED[f]}`).toEqual(new Set(['claude-code']));
  });
});
