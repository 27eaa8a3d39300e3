import { describe, it, expect } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import type { EventEmitter } from 'node:events';
import { activeRepeats } from '../../src-main/core/util/repeat.js';
import { dispatcherOf } from '../../src-main/core/wakes/dispatcher.js';

/**
 * Every capability starter returns its stop step, and closing the core runs them: no sweep or
 * pruning loop or session listener of a closed core is left behind in the process (a desktop
 * app that restarts its core, or a test file that starts many, would pile them up). The ports
 * hold nothing per core: the running parts they reach (the wake dispatcher) stop with it.
 */
describe('capability starters stop with the core', () => {
  it('a closed core leaves no background loop, listener or running dispatcher of its own', async () => {
    const before = activeRepeats();
    const s = await startTestServer();
    const { core } = s.running;
    // The starters run once the home is known sound; a small home is checked before listening.
    expect(activeRepeats()).toBeGreaterThan(before);
    expect(dispatcherOf(core)).toBeDefined();
    const busListeners = (core.bus as unknown as { emitter: EventEmitter }).emitter.listenerCount('event');
    expect(busListeners).toBeGreaterThan(0);
    const listeners = (core.sessions as unknown as { listeners: unknown[] }).listeners;
    expect(listeners.length).toBeGreaterThan(0);
    await s.stop();
    expect(activeRepeats()).toBe(before);
    expect((core.bus as unknown as { emitter: EventEmitter }).emitter.listenerCount('event')).toBe(0);
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
