import { describe, it, expect } from 'vitest';
import { openTestApp } from '../helpers/app.js';
import type { EventEmitter } from 'node:events';
import { activeRepeats } from '../../src-main/core/util/repeat.js';
import { dispatcherOf } from '../../src-main/core/wakes/dispatcher.js';

/**
 * Every capability starter returns its stop step, and closing the core runs them: no sweep or
 * pruning loop or session listener of a closed core is left behind in the process (a desktop
 * app that restarts its core, or a test file that starts many, would pile them up). The ports
 * hold nothing per core: the running parts they reach (the wake dispatcher) stop with it.
 * The starters run in process here, as the server starts them (assembleCore's startCapabilities);
 * that the server's own close runs their stop steps is checked in core-sessions.test.ts.
 */
describe('capability starters stop with the core', () => {
  it('a closed core leaves no background loop, listener or running dispatcher of its own', async () => {
    const s = await openTestApp({ background: true });
    const { core } = s.running;
    expect(activeRepeats(core)).toBeGreaterThan(0);
    expect(dispatcherOf(core)).toBeDefined();
    const busListeners = (core.bus as unknown as { emitter: EventEmitter }).emitter.listenerCount('event');
    expect(busListeners).toBeGreaterThan(0);
    // The app's own event log listens too: the starters add to it.
    expect(busListeners).toBeGreaterThan(1);
    const listeners = (core.sessions as unknown as { listeners: unknown[] }).listeners;
    expect(listeners.length).toBeGreaterThan(0);
    await s.stop();
    expect(activeRepeats(core)).toBe(0);
    expect((core.bus as unknown as { emitter: EventEmitter }).emitter.listenerCount('event')).toBe(0);
    expect(listeners).toEqual([]);
  });

  it('two cores in one process each stop only their own work', async () => {
    const a = await openTestApp({ background: true });
    const b = await openTestApp({ background: true });
    const loops = activeRepeats(a.core);
    expect(loops).toBeGreaterThan(0);
    expect(activeRepeats(b.core)).toBe(loops);
    await a.stop();
    expect(activeRepeats(a.core)).toBe(0);
    // b still answers and still has its loops.
    expect(activeRepeats(b.core)).toBe(loops);
    const me = await b.api('GET', '/v1/me');
    expect(me.status).toBe(200);
    await b.stop();
    expect(activeRepeats(b.core)).toBe(0);
  });
});
