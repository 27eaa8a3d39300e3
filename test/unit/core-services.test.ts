// The services (docs/architecture.md "Services"): the core's long-lived parts, built by
// assembleCore before anything can call. A core missing one refuses to start, naming it; no
// capability keeps state in a module-level map keyed by the core, or calls into a service that
// may be absent.
import { describe, it, expect, afterEach } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireServices, SERVICE_NAMES, type CoreServices } from '../../src-main/core/core.js';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts|cts)$/.test(name)) out.push(path);
  }
  return out;
}

let mem: MemoryCore | undefined;
afterEach(() => {
  mem?.close();
  mem = undefined;
});

describe('core services', () => {
  it('assembleCore builds every service, the in-memory core of tests too (its dispatcher built, not started)', () => {
    mem = openMemoryCore();
    const { services } = mem.core;
    expect(Object.keys(SERVICE_NAMES).filter((name) => (services as unknown as Record<string, unknown>)[name] == null)).toEqual([]);
    expect(requireServices(services)).toBe(services);
    // A dispatcher that never started still answers the ports (no optional call, no silent skip).
    expect(() => mem!.core.ports.agentActed(mem!.core, { plate: 'AR-NONE', roomId: 'r_none', tool: 'post_message' })).not.toThrow();
    expect(() => mem!.core.ports.runnerRightChanged(mem!.core, 'o_none')).not.toThrow();
  });

  it('a missing service is named at construction', () => {
    mem = openMemoryCore();
    const some = { ...mem.core.services } as Partial<CoreServices>;
    delete some.dispatcher;
    delete some.blobs;
    expect(() => requireServices(some as CoreServices)).toThrow(/the core cannot start: missing service\(s\) dispatcher, blobs \(/);
    expect(() => requireServices({} as CoreServices)).toThrow(new RegExp(`missing service\\(s\\) ${Object.keys(SERVICE_NAMES).join(', ')} \\(`));
  });

  it('no module-level registry keyed by the core, no optional call into a service, no process-runner setter', () => {
    const hits: string[] = [];
    for (const file of sources(join(ROOT, 'src-main'))) {
      const text = readFileSync(file, 'utf8');
      const rel = file.slice(ROOT.length);
      for (const m of text.matchAll(/new WeakMap<Core\b|dispatcherOf\([^)]*\)\?\.|services\.\w+\?\.|useProcessRunner/g)) hits.push(`${rel}: ${m[0]}`);
    }
    expect(hits).toEqual([]);
  });

  it('docs/architecture.md names every service', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Services'), doc.indexOf('## Assembly'));
    expect(section.length).toBeGreaterThan(0);
    expect(Object.keys(SERVICE_NAMES).filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
