// The ports (docs/architecture.md "Ports"): one typed object of required functions, given to the
// core at construction. A core missing one refuses to start, naming it, before it opens the home.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requirePorts, type CorePorts } from '../../src-main/core/core.js';
import { CAPABILITY_PORTS } from '../../src-main/core/capabilities.js';
import { assembleCore } from '../../src-main/core/assemble.js';

const without = (name: string, inner?: string): CorePorts => {
  const ports = { ...CAPABILITY_PORTS } as Record<string, unknown>;
  if (inner) ports[name] = { ...(ports[name] as object), [inner]: undefined };
  else delete ports[name];
  return ports as unknown as CorePorts;
};

describe('core ports', () => {
  it('the capabilities give every port', () => {
    expect(requirePorts(CAPABILITY_PORTS)).toBe(CAPABILITY_PORTS);
  });

  it('a missing port, or a missing function of one, is named', () => {
    expect(() => requirePorts(without('taskEnded'))).toThrow(/missing port\(s\) taskEnded \(/);
    expect(() => requirePorts(without('taskWakes', 'receiveRunning'))).toThrow(/missing port\(s\) taskWakes\.receiveRunning \(/);
    expect(() => requirePorts({} as CorePorts)).toThrow(/agentActed, taskEnded, runnerRightChanged, .*authenticateAgent/);
  });

  it('assembleCore (the core without its listener) refuses a core without a port before it touches the home', () => {
    const home = mkdtempSync(join(tmpdir(), 'ar-ports-'));
    try {
      expect(() => assembleCore({ home, db: 'memory', log: () => {}, ports: without('agentActed') })).toThrow(/the core cannot start: missing port\(s\) agentActed/);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
  // startCore's own refusal, before it touches the home, is checked where the server starts: test/integration/core-sessions.test.ts.
});

describe('docs/architecture.md lists the ports', () => {
  it('names every port of CorePorts', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8');
    const section = doc.slice(doc.indexOf('## Reaching another capability'), doc.indexOf('## Tests\n'));
    expect(Object.keys(CAPABILITY_PORTS).filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });
});
