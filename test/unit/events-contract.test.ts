import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_EVENT_TYPES, SERVER_ONLY_EVENTS } from '../../shared/core-events.js';

// The type map in shared/core-events.ts makes an unknown event fail to compile on either side; this
// test catches the other drift: a declared event nobody emits, or one the UI does not follow.

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** Every `….emit({ type: '…'` in the core. */
function emittedTypes(): Set<string> {
  const out = new Set<string>();
  for (const f of sources(join(root, 'src-main', 'core'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\.emit\(\{\s*type:\s*'([^']+)'/g)) out.add(m[1]!);
  }
  return out;
}

/** The keys of the UI's handler map (src-renderer/src/live-events.ts). */
function handledTypes(): Set<string> {
  const src = readFileSync(join(root, 'src-renderer', 'src', 'live-events.ts'), 'utf8');
  const body = /const HANDLERS: LiveHandlers = \{\n([\s\S]*?)\n\};/.exec(src);
  expect(body, 'the HANDLERS map of live-events.ts').not.toBeNull();
  return new Set([...body![1]!.matchAll(/^ {2}'([^']+)':/gm)].map((m) => m[1]!));
}

const sorted = (s: Iterable<string>) => [...s].sort();

describe('the event contract (shared/core-events.ts)', () => {
  it('every declared event has an emitter in the core, and the core emits nothing undeclared', () => {
    expect(sorted(emittedTypes())).toEqual(sorted(CORE_EVENT_TYPES));
  });

  it('the UI handles every event but the server-only ones, and only events that are emitted', () => {
    const serverOnly = new Set<string>(SERVER_ONLY_EVENTS);
    expect(sorted(handledTypes())).toEqual(sorted(CORE_EVENT_TYPES.filter((t) => !serverOnly.has(t))));
    const emitted = emittedTypes();
    for (const t of handledTypes()) expect(emitted.has(t), `${t} has an emitter`).toBe(true);
  });
});
