import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { fails, ok } from '../helpers/server.js';
import { agentInRoom } from '../helpers/seat.js';
import { immediate } from '../../src-main/core/db/open.js';
import { isRevoked } from '../../src-main/core/agents/store.js';
import { checkAgentRoom } from '../../src-main/core/rooms/store.js';

/**
 * The revocation and room checks every tool call makes are remembered until a row they read
 * changes (docs/performance.md, "Remembered checks"). Each test first makes the check pass (so it
 * is remembered), then changes the store the way an owner, or any code path, would, and expects
 * the very next check to see it.
 */
describe('remembered checks', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await openTestApp({ database: 'home' });
  });
  afterAll(async () => {
    await app.stop();
  });

  const ids = (plate: string) =>
    app.core.db.prepare('SELECT a.id AS agent, c.id AS cred, c.device_id AS device FROM agents a JOIN credentials c ON c.agent_id = a.id WHERE a.plate = ?').get(plate) as {
      agent: string;
      cred: string;
      device: string;
    };

  for (const [what, sql] of [
    ['credential revoked', 'UPDATE credentials SET revoked_at = 1 WHERE id = @cred'],
    ['credential deleted', 'DELETE FROM credentials WHERE id = @cred'],
    ['agent revoked', 'UPDATE agents SET revoked_at = 1 WHERE id = @agent'],
    ['device revoked', 'UPDATE devices SET revoked_at = 1 WHERE id = @device'],
    ['credential moved to another device', "UPDATE credentials SET device_id = 'dev_gone' WHERE id = @cred"],
  ] as const) {
    it(`a passed revocation check is read again after: ${what}, whatever code writes it`, async () => {
      const a = await app.agent(`Rev ${what}`);
      const x = ids(a.plate);
      expect(isRevoked(app.core.db, x.agent, x.cred, x.device)).toBe(false);
      expect(isRevoked(app.core.db, x.agent, x.cred, x.device)).toBe(false);
      app.core.db.pragma('foreign_keys = OFF');
      try {
        app.core.db.prepare(sql).run(x);
      } finally {
        app.core.db.pragma('foreign_keys = ON');
      }
      expect(isRevoked(app.core.db, x.agent, x.cred, x.device)).toBe(true);
    });
  }

  it('a revocation rolled back leaves the check passing; a first check inside a transaction reads the store', async () => {
    const a = await app.agent('Rev Rollback');
    const x = ids(a.plate);
    expect(() =>
      immediate(app.core.db, () => {
        app.core.db.prepare('UPDATE credentials SET revoked_at = 1 WHERE id = ?').run(x.cred);
        expect(isRevoked(app.core.db, x.agent, x.cred, x.device)).toBe(true);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(isRevoked(app.core.db, x.agent, x.cred, x.device)).toBe(false);
  });

  it('an agent removed from the room is refused on its very next call, and let in again when re-added', async () => {
    const { agent, room, c } = await agentInRoom(app, 'Member Gone', 'Remembered Room');
    await ok(c, 'read_room', { room });
    await ok(c, 'read_room', { room });
    expect((await app.api('DELETE', `/v1/rooms/${room}/agents/${agent.plate}`)).status).toBeLessThan(300);
    expect((await fails(c, 'read_room', { room })).code).toBe('NOT_MEMBER');
    expect((await fails(c, 'send_message', { room, body: 'still here?' })).code).toBe('NOT_MEMBER');
    await app.join(room, agent.plate);
    await ok(c, 'read_room', { room });
  });

  it('a credential revoked by its owner refuses the next call of a session whose calls passed', async () => {
    const { agent, room, c } = await agentInRoom(app, 'Revoked Mid Session', 'Remembered Room 2');
    await ok(c, 'read_room', { room });
    expect((await app.api('DELETE', `/v1/credentials/${agent.credential_id}`)).status).toBe(200);
    await expect(c.callTool({ name: 'read_room', arguments: { room } })).rejects.toThrow();
  });

  it('a deleted room, or a row changed by any code, is read again', async () => {
    const { agent, room } = await agentInRoom(app, 'Room Row', 'Remembered Room 3');
    checkAgentRoom(app.core.db, room, agent.plate);
    app.core.db.prepare('DELETE FROM room_agents WHERE room_id = ? AND plate = ?').run(room, agent.plate);
    expect(() => checkAgentRoom(app.core.db, room, agent.plate)).toThrow(/not a member/);
    app.core.db.prepare('INSERT INTO room_agents (room_id, plate, added_by, created_at) SELECT ?, ?, owner_id, 0 FROM agents WHERE plate = ?').run(room, agent.plate, agent.plate);
    checkAgentRoom(app.core.db, room, agent.plate);
    app.core.db.pragma('foreign_keys = OFF');
    try {
      app.core.db.prepare('DELETE FROM rooms WHERE id = ?').run(room);
    } finally {
      app.core.db.pragma('foreign_keys = ON');
    }
    expect(() => checkAgentRoom(app.core.db, room, agent.plate)).toThrow(/room not found/);
  });
});
