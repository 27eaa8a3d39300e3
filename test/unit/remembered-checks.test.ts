import { describe, it, expect } from 'vitest';
import { fails, ok } from '../helpers/server.js';
import { agentInRoom, appFor } from '../helpers/seat.js';
import { immediate } from '../../src-main/core/db/open.js';
import { agentPlateBySlug, isRevoked } from '../../src-main/core/agents/store.js';
import { checkAgentRoom, isAgentMember } from '../../src-main/core/rooms/store.js';
import { ownerIdBySlug } from '../../src-main/core/owners/store.js';
import { hasRunner } from '../../src-main/core/wakes/runners.js';

/**
 * The revocation and room checks every tool call makes are remembered until a row they read
 * changes (docs/performance.md, "Remembered checks"). Each test first makes the check pass (so it
 * is remembered), then changes the store the way an owner, or any code path, would, and expects
 * the very next check to see it.
 */
describe('remembered checks and lookups', () => {
  const app = appFor({ database: 'home' });

  it('the core installs every memo on its connection when it is assembled (or every read would go to the store)', () => {
    const triggers = app.core.db.prepare("SELECT name FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE 'ar_memo_%'").all() as Array<{ name: string }>;
    const memos = new Set(triggers.map((t) => t.name.replace(/^ar_memo_/, '').replace(/_\d+$/, '')));
    expect([...memos].sort()).toEqual(['agent_slugs', 'membership', 'mention_targets', 'owner_slugs', 'revocation', 'runners', 'search_progress']);
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

  const withoutForeignKeys = (fn: () => void) => {
    app.core.db.pragma('foreign_keys = OFF');
    try {
      fn();
    } finally {
      app.core.db.pragma('foreign_keys = ON');
    }
  };

  it('slugs and runners looked up again after a rename, a removal or a new row', async () => {
    const db = app.core.db;
    const a = await app.agent('Slug Agent');
    const owner = db.prepare('SELECT o.id, o.slug FROM owners o JOIN agents a ON a.owner_id = o.id WHERE a.plate = ?').get(a.plate) as { id: string; slug: string };
    expect(ownerIdBySlug(db, owner.slug)).toBe(owner.id);
    expect(ownerIdBySlug(db, 'nobody-yet')).toBeUndefined();
    db.prepare("UPDATE owners SET slug = 'nobody-yet' WHERE id = ?").run(owner.id);
    expect(ownerIdBySlug(db, 'nobody-yet')).toBe(owner.id);
    expect(ownerIdBySlug(db, owner.slug)).toBeUndefined();
    db.prepare('UPDATE owners SET slug = ? WHERE id = ?').run(owner.slug, owner.id);

    expect(agentPlateBySlug(db, owner.id, 'slug-agent')).toBe(a.plate);
    db.prepare("UPDATE agents SET slug = 'renamed' WHERE plate = ?").run(a.plate);
    expect(agentPlateBySlug(db, owner.id, 'slug-agent')).toBeUndefined();
    expect(agentPlateBySlug(db, owner.id, 'renamed')).toBe(a.plate);

    expect(hasRunner(db, a.plate)).toBe(false);
    db.prepare("INSERT INTO runners (plate, host, command, timeout_ms, created_at, updated_at) VALUES (?, 'codex', 'codex', 1000, 0, 0)").run(a.plate);
    expect(hasRunner(db, a.plate)).toBe(true);
    db.prepare('DELETE FROM runners WHERE plate = ?').run(a.plate);
    expect(hasRunner(db, a.plate)).toBe(false);
  });

  it('a lookup made inside a transaction that changed a watched row is not remembered past its rollback', async () => {
    const db = app.core.db;
    const { agent, room } = await agentInRoom(app, 'Rolled Back Member', 'Remembered Room 4');
    withoutForeignKeys(() => db.prepare('DELETE FROM room_agents WHERE room_id = ? AND plate = ?').run(room, agent.plate));
    expect(isAgentMember(db, room, agent.plate)).toBe(false);
    expect(() =>
      immediate(db, () => {
        db.prepare('INSERT INTO room_agents (room_id, plate, added_by, created_at) SELECT ?, ?, owner_id, 0 FROM agents WHERE plate = ?').run(room, agent.plate, agent.plate);
        expect(isAgentMember(db, room, agent.plate)).toBe(true);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(isAgentMember(db, room, agent.plate)).toBe(false);
    expect(() => checkAgentRoom(db, room, agent.plate)).toThrow(/not a member/);

    // Read first in a transaction that changes nothing watched: remembered, and still right after it.
    immediate(db, () => expect(ownerIdBySlug(db, 'no-such-owner')).toBeUndefined());
    expect(ownerIdBySlug(db, 'no-such-owner')).toBeUndefined();
  });

  it('a message mentions an agent by @name(owner) again after the agent is renamed back and forth', async () => {
    const { room, c } = await agentInRoom(app, 'Renamer', 'Remembered Room 5');
    const t = await app.agent('Target One');
    await app.join(room, t.plate);
    const sent = await ok<{ mentions: Array<{ plate: string }> }>(c, 'send_message', { room, body: 'hi', mention_targets: [t.handle] });
    expect(sent.mentions.map((m) => m.plate)).toEqual([t.plate]);
    app.core.db.prepare("UPDATE agents SET slug = 'target-two' WHERE plate = ?").run(t.plate);
    expect((await fails(c, 'send_message', { room, body: 'hi again', mention_targets: [t.handle] })).reason).toBe('unknown_mention_target');
    const again = await ok<{ mentions: Array<{ plate: string }> }>(c, 'send_message', {
      room,
      body: 'hi two',
      mention_targets: [t.handle.replace('target-one', 'target-two')],
    });
    expect(again.mentions.map((m) => m.plate)).toEqual([t.plate]);
  });

  it('a remembered mention target is resolved again after the agent leaves the room, the owner is renamed, or a human leaves', async () => {
    const db = app.core.db;
    const { room, c } = await agentInRoom(app, 'Target Sender', 'Remembered Room 6');
    const t = await app.agent('Target Three');
    await app.join(room, t.plate);
    const owner = db.prepare('SELECT o.id, o.slug FROM owners o JOIN agents a ON a.owner_id = o.id WHERE a.plate = ?').get(t.plate) as { id: string; slug: string };
    const mention = async (target: string) => ok<{ mentions: Array<{ plate?: string; owner_id: string }> }>(c, 'send_message', { room, body: 'hi', mention_targets: [target] });
    const refused = async (target: string) => (await fails(c, 'send_message', { room, body: 'hi', mention_targets: [target] })).reason;

    // By handle and by plate, twice each: the second answer is the remembered one.
    for (const target of [t.handle, t.handle, t.plate, t.plate]) expect((await mention(target)).mentions.map((m) => m.plate)).toEqual([t.plate]);
    withoutForeignKeys(() => db.prepare('DELETE FROM room_agents WHERE room_id = ? AND plate = ?').run(room, t.plate));
    expect(await refused(t.handle)).toBe('unknown_mention_target');
    expect(await refused(t.plate)).toBe('unknown_mention_target');
    await app.join(room, t.plate);
    expect((await mention(t.handle)).mentions.map((m) => m.plate)).toEqual([t.plate]);

    // The owner's slug is part of the handle.
    db.prepare("UPDATE owners SET slug = 'renamed-owner' WHERE id = ?").run(owner.id);
    try {
      expect(await refused(t.handle)).toBe('unknown_mention_target');
      expect((await mention(t.handle.replace(`(${owner.slug})`, '(renamed-owner)'))).mentions.map((m) => m.plate)).toEqual([t.plate]);
    } finally {
      db.prepare('UPDATE owners SET slug = ? WHERE id = ?').run(owner.slug, owner.id);
    }

    // A human member by @slug, until the human leaves the room.
    const human = db.prepare('SELECT h.owner_id AS id, o.slug FROM room_humans h JOIN owners o ON o.id = h.owner_id WHERE h.room_id = ?').get(room) as { id: string; slug: string };
    expect((await mention(`@${human.slug}`)).mentions).toEqual([{ kind: 'human', handle: `@${human.slug}`, owner_id: human.id }]);
    expect((await mention(`@${human.slug}`)).mentions).toEqual([{ kind: 'human', handle: `@${human.slug}`, owner_id: human.id }]);
    const row = db.prepare('SELECT * FROM room_humans WHERE room_id = ? AND owner_id = ?').get(room, human.id) as Record<string, unknown>;
    withoutForeignKeys(() => db.prepare('DELETE FROM room_humans WHERE room_id = ? AND owner_id = ?').run(room, human.id));
    try {
      expect(await refused(`@${human.slug}`)).toBe('unknown_mention_target');
    } finally {
      db.prepare('INSERT INTO room_humans (room_id, owner_id, role, created_at) VALUES (@room_id, @owner_id, @role, @created_at)').run(row);
    }
  });
});
