import { describe, it, expect } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { activeRepeats } from '../../src-main/core/util/repeat.js';

/**
 * Every capability starter returns its stop step, and closing the core runs them: no sweep or
 * pruning loop, hook or session listener of a closed core is left behind in the process (a
 * desktop app that restarts its core, or a test file that starts many, would pile them up).
 */
describe('capability starters stop with the core', () => {
  it('a closed core leaves no background loop and no hook of its own', async () => {
    const before = activeRepeats();
    const s = await startTestServer();
    const { core } = s.running;
    // The starters run once the home is known sound; a small home is checked before listening.
    expect(activeRepeats()).toBeGreaterThan(before);
    expect(core.hooks.workingOn.length).toBeGreaterThan(0);
    expect(core.hooks.taskEnded.length).toBeGreaterThan(0);
    expect(core.hooks.agentActed.length).toBeGreaterThan(0);
    const listeners = (core.sessions as unknown as { listeners: unknown[] }).listeners;
    expect(listeners.length).toBeGreaterThan(0);
    await s.stop();
    expect(activeRepeats()).toBe(before);
    expect(core.hooks.workingOn).toEqual([]);
    expect(core.hooks.taskEnded).toEqual([]);
    expect(core.hooks.agentActed).toEqual([]);
    expect(listeners).toEqual([]);
  });

  it('two cores in one process each stop only their own work', async () => {
    const before = activeRepeats();
    const a = await startTestServer();
    const afterA = activeRepeats();
    const b = await startTestServer();
    expect(activeRepeats() - afterA).toBe(afterA - before);
    await a.stop();
    expect(activeRepeats()).toBe(afterA);
    // b still answers and still has its loops.
    const me = await b.api('GET', '/v1/me');
    expect(me.status).toBe(200);
    await b.stop();
    expect(activeRepeats()).toBe(before);
  });
});
