import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';

/**
 * A human API error keeps the argument *shape* of the route's declared body and query (names, types,
 * lengths) as its evidence, as tools do; never a value, and undeclared names only as a count.
 */
describe('route errors keep the argument shape in evidence', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp();
  });
  afterAll(() => s.stop());

  const evidence = (errorId: string) =>
    s.running.core.db.prepare('SELECT surface, tool, code, arg_shape, room_id FROM evidence WHERE error_id = ?').get(errorId) as
      | { surface: string; tool: string; code: string; arg_shape: string; room_id: string | null }
      | undefined;

  it('a refused body: declared names with their types, values never, other names counted', async () => {
    const secret = 'sk-live-do-not-store-0123456789';
    const r = await s.api('POST', '/v1/rooms', { name: 42, sneaky: secret, other: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ARGUMENT');
    const e = evidence(r.body.error.error_id)!;
    expect(e.surface).toBe('v1');
    expect(e.tool).toBe('POST /v1/rooms');
    expect(JSON.parse(e.arg_shape)).toEqual({ name: 'number', '<unknown keys>': 2 });
    expect(JSON.stringify(e)).not.toContain(secret);
  });

  it('a refused query: its declared parameters as strings', async () => {
    const room = await s.room('Evidence');
    const r = await s.api('GET', `/v1/rooms/${room}/search?q=&limit=zzz&token=hunter2`);
    expect(r.status).toBe(400);
    const e = evidence(r.body.error.error_id)!;
    const shape = JSON.parse(e.arg_shape) as Record<string, unknown>;
    expect(shape.q).toBe('string');
    expect(shape['<unknown keys>']).toBe(1);
    expect(e.arg_shape).not.toContain('hunter2');
    expect(e.room_id ?? room).toBe(room);
  });

  it('a room route refuses a non-member before reading the body, and says nothing about the room', async () => {
    const room = await s.room('Private');
    const other = await s.owner('Mallory');
    const r = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hi' }, other.token);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect(r.body.error.message).toBe('room not found');
    const missing = await s.api('POST', `/v1/rooms/room_nope/messages`, { body: 'hi' }, other.token);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(r.body.error.message);
  });
});

describe('route evidence of a checked record body', () => {
  it('the runner body (a preset or a command) keeps its field names', async () => {
    const s = await openTestApp();
    try {
      const a = await s.agent('Runner');
      const r = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 7, env: { TOKEN: 'hunter2' }, x: 1 });
      expect(r.status).toBe(400);
      const e = s.running.core.db.prepare('SELECT arg_shape FROM evidence WHERE error_id = ?').get(r.body.error.error_id) as { arg_shape: string };
      expect(JSON.parse(e.arg_shape)).toEqual({ preset: 'number', env: 'object', '<unknown keys>': 1 });
      expect(e.arg_shape).not.toContain('hunter2');
    } finally {
      await s.stop();
    }
  });
});
