import { describe, expect, it } from 'vitest';
import { fillPath, queryString } from '../../shared/contracts/route-path.js';
import { contracts } from '../../shared/contracts/index.js';

/** The contracts' paths as the window's client fills them (shared/contracts/route-path.ts; docs/architecture.md "Contracts"). */
describe('contract paths', () => {
  it('fills each :param, percent-encoded, so a value cannot change the path', () => {
    expect(fillPath('/v1/rooms/:id/tasks/:taskId/cancel', { id: 'r 1', taskId: '../x?y#z' })).toBe('/v1/rooms/r%201/tasks/..%2Fx%3Fy%23z/cancel');
  });

  it('refuses a missing parameter instead of sending a path with ":id" in it', () => {
    expect(() => fillPath('/v1/rooms/:id', {})).toThrow(/parameter id missing/);
  });

  it('writes a query of the values given, leaving absent ones out', () => {
    expect(queryString({ limit: 50, lane: 'a&b', cursor: undefined, x: null })).toBe('?limit=50&lane=a%26b');
    expect(queryString({})).toBe('');
    expect(queryString(undefined)).toBe('');
  });

  it('declares each method and path once: no two endpoints share both', () => {
    const seen = new Map<string, string>();
    for (const [cap, endpoints] of Object.entries(contracts)) {
      for (const [name, e] of Object.entries(endpoints as Record<string, { method: string; path: string }>)) {
        const key = `${e.method} ${e.path}`;
        expect(seen.get(key), `${cap}.${name} repeats ${key}`).toBeUndefined();
        seen.set(key, `${cap}.${name}`);
        expect(e.path.startsWith('/v1/'), `${cap}.${name}: ${e.path}`).toBe(true);
      }
    }
    expect(seen.size).toBeGreaterThan(0);
  });
});
