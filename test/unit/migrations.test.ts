import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src-main/core/db/migrate.js';
import { MIGRATIONS } from '../../src-main/core/db/migrations/index.js';
import { changedClassesSince, lastChangeOf } from '../../src-main/core/rooms/store.js';
import { enqueueWake, getWake, holdWake } from '../../src-main/core/wakes/store.js';
import { addInboxItem, ackByIds, roomOfItem } from '../../src-main/core/inbox/store.js';
import { seqId, seqOfId } from '../../src-main/core/util/ids.js';
import { getMessage, messageKey, messagesForInbox } from '../../src-main/core/messages/service.js';
import { writeParkedLeftBehind } from '../../src-main/core/messages/parked.js';

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

/** A table's rows with their rowid, in rowid order (for a seq table, seq order). */
function rowsOf(db: Database.Database, table: string): unknown[] {
  return db.prepare(`SELECT rowid AS r, * FROM ${table} ORDER BY rowid`).all();
}

/** A table's stored schema objects of one type (index, trigger) with their SQL, by name. */
function schemaOf(db: Database.Database, type: 'index' | 'trigger', table: string): unknown[] {
  return db.prepare('SELECT name, sql FROM sqlite_master WHERE type = ? AND tbl_name = ? AND sql IS NOT NULL ORDER BY name').all(type, table);
}

/** The rows most migration tests start from: owner own_1, room room_1, agent ADA-AGT-000001. */
function seedOwnerRoomAgent(db: Database.Database, now: number): void {
  db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
  db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'R', 'own_1', ?)").run(now);
  db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-000001', 'own_1', 'A', 'a', 31, ?)").run(now);
}

function fresh() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  return db;
}

describe('migrations', () => {
  it('run 1..N without gaps, each version matching its NNNN- file name', () => {
    const versions = MIGRATIONS.map((m) => m.version).sort((a, b) => a - b);
    expect(versions).toEqual(versions.map((_v, i) => i + 1));
    for (const m of MIGRATIONS) {
      expect(m.version).toBeGreaterThan(0);
      expect(m.name.startsWith(String(m.version).padStart(4, '0') + '-')).toBe(true);
    }
  });

  it('0001-core: rows written at version 1 survive migrating to the latest; user_version is the latest', () => {
    const db = fresh();
    expect(migrate(db, 1)).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-ABCDEF', 'own_1', 'Alice', 'alice', 31, ?)").run(now);
    db.prepare("INSERT INTO devices (id, agent_id, name, created_at) VALUES ('dev_1', 'agt_1', 'laptop', ?)").run(now);
    db.prepare("INSERT INTO credentials (id, agent_id, device_id, secret_hash, created_at) VALUES ('cred_1', 'agt_1', 'dev_1', 'sh', ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    db.prepare("INSERT INTO room_agents (room_id, plate, added_by, created_at) VALUES ('room_1', 'ADA-AGT-ABCDEF', 'own_1', ?)").run(now);
    db.prepare("INSERT INTO messages (id, room_id, seq, sender_kind, sender_plate, sender_owner_id, body, created_at) VALUES ('msg_1', 'room_1', 1, 'agent', 'ADA-AGT-ABCDEF', 'own_1', 'hello', ?)").run(now);
    db.prepare("INSERT INTO mentions (id, plate, room_id, message_id, trust_level, created_at) VALUES ('mnt_1', 'ADA-AGT-ABCDEF', 'room_1', 'msg_1', 'same_owner', ?)").run(now);
    db.prepare("INSERT INTO wakes (id, plate, room_id, trigger, message_id, content, event_key, created_at) VALUES ('wake_1', 'ADA-AGT-ABCDEF', 'room_1', 'mention', 'msg_1', 'hello', 'msg:msg_1', ?)").run(now);

    expect(migrate(db)).toBe(LATEST);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST);
    expect(db.prepare('SELECT plate, scopes FROM agents').all()).toEqual([{ plate: 'ADA-AGT-ABCDEF', scopes: 31 }]);
    expect(db.prepare('SELECT body, seq FROM messages').all()).toEqual([{ body: 'hello', seq: 1 }]);
    expect(db.prepare('SELECT id, acked_at FROM mentions').all()).toEqual([{ id: 'mnt_1', acked_at: null }]);
    expect(db.prepare('SELECT secret_hash FROM credentials').all()).toEqual([{ secret_hash: 'sh' }]);
    expect(db.prepare('SELECT status FROM wakes').all()).toEqual([{ status: 'queued' }]);
    // Migrating again is a no-op.
    expect(migrate(db)).toBe(LATEST);
  });

  it('tables are STRICT: a wrong type is rejected', () => {
    const db = fresh();
    migrate(db);
    expect(() =>
      db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, created_at) VALUES ('o', 'n', 's', 'AB', 't', 'yesterday')").run(),
    ).toThrow(/cannot store TEXT value in INTEGER column/);
    const strict = db.prepare("SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string; strict: number }>;
    expect(strict.length).toBeGreaterThan(0);
    expect(strict.filter((t) => t.strict !== 1).map((t) => t.name)).toEqual([]);
  });

  it('refuses a database newer than this build', () => {
    const db = fresh();
    db.pragma(`user_version = ${LATEST + 1}`);
    expect(() => migrate(db)).toThrow(/newer than this build/);
  });
});

describe('0006-wake-dispatch-index', () => {
  it('the dispatcher query can run on the partial index, and queued wakes written before it survive', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { migrate } = await import('../../src-main/core/db/migrate.js');
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, 5);
    db.exec(`INSERT INTO owners (id, name, slug, plate_prefix, token_hash, created_at) VALUES ('own_1', 'A', 'a', 'AA', 'h', 1);
      INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'AA-AGT-000000', 'own_1', 'x', 'x', 31, 1);
      INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'r', 'own_1', 1);
      INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES ('wake_1', 'AA-AGT-000000', 'room_1', 'mention', 'hi', 'e1', 1);`);
    migrate(db);
    // Later migrations run too (0007-reservations rebuilds wakes); the index must survive them.
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT MIN(seq) FROM wakes INDEXED BY wakes_dispatchable WHERE status = 'queued' AND target IS NOT 'pull' GROUP BY plate, room_id`)
      .all()
      .map((r: any) => r.detail)
      .join(' ');
    expect(plan).toContain('wakes_dispatchable');
    expect(plan).not.toContain('TEMP B-TREE');
    expect(db.prepare("SELECT status FROM wakes WHERE id = 'wake_1'").get()).toEqual({ status: 'queued' });
  });
});

describe('0007-reservations', () => {
  it('wakes written before it keep every column, index and the seq counter; paths_free becomes a valid trigger', () => {
    const db = fresh();
    const before = MIGRATIONS.find((m) => m.name.endsWith('-reservations'))!.version - 1;
    migrate(db, before);
    db.exec(`INSERT INTO owners (id, name, slug, plate_prefix, token_hash, created_at) VALUES ('own_1', 'A', 'a', 'AA', 'h', 1);
      INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'AA-AGT-000000', 'own_1', 'x', 'x', 31, 1);
      INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'r', 'own_1', 1);
      INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at, target, stdout_tail) VALUES ('wake_1', 'AA-AGT-000000', 'room_1', 'mention', 'hi', 'e1', 1, 'pull', 'out');
      INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES ('wake_2', 'AA-AGT-000000', 'room_1', 'assignment', 't', 'e2', 2);
      DELETE FROM wakes WHERE id = 'wake_2';`);
    const indexes = (d: Database.Database) =>
      (d.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'wakes' AND sql IS NOT NULL ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    const idxBefore = indexes(db);
    // Up to 0007, whose rebuild this checks (0011 changes the wakes' indexes: tested below).
    migrate(db, before + 1);
    expect(db.prepare("SELECT seq, id, trigger, target, stdout_tail, status FROM wakes").all()).toEqual([
      { seq: 1, id: 'wake_1', trigger: 'mention', target: 'pull', stdout_tail: 'out', status: 'queued' },
    ]);
    // Every index is kept.
    expect(indexes(db)).toEqual(expect.arrayContaining(idxBefore));
    db.prepare("INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES ('wake_3', 'AA-AGT-000000', 'room_1', 'paths_free', '{}', 'e3', 3)").run();
    // AUTOINCREMENT never reuses the deleted wake's seq.
    expect(db.prepare("SELECT seq FROM wakes WHERE id = 'wake_3'").get()).toEqual({ seq: 3 });
    expect(() =>
      db.prepare("INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES ('wake_4', 'AA-AGT-000000', 'room_1', 'bogus', '{}', 'e4', 4)").run(),
    ).toThrow(/CHECK constraint failed/);
    db.prepare(
      "INSERT INTO path_reservations (id, request_id, room_id, plate, pattern, exclusive, state, ttl_ms, created_at, granted_at, expires_at) VALUES ('rsv_1', 'rreq_1', 'room_1', 'AA-AGT-000000', 'src/**', 1, 'active', 1000, 1, 1, 1001)",
    ).run();
    expect(() =>
      db.prepare("INSERT INTO path_reservations (id, request_id, room_id, plate, pattern, exclusive, state, ttl_ms, created_at, expires_at) VALUES ('rsv_2', 'r', 'room_1', 'AA-AGT-000000', 'x', 2, 'active', 1, 1, 1)").run(),
    ).toThrow(/CHECK constraint failed/);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });
});

describe('0008-security', () => {
  it('adds the rights columns with safe defaults, learns old mention wakes\' actors, and keeps the rows', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { migrate } = await import('../../src-main/core/db/migrate.js');
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, MIGRATIONS.find((m) => m.name.endsWith('-security'))!.version - 1);
    db.exec(`INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'A', 'a', 'AA', 'h', 1, 1);
      INSERT INTO owners (id, name, slug, plate_prefix, token_hash, created_at) VALUES ('own_2', 'B', 'b', 'BB', 'h2', 1);
      INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'AA-AGT-000000', 'own_1', 'x', 'x', 31, 1);
      INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'r', 'own_1', 1);
      INSERT INTO messages (id, room_id, seq, sender_kind, sender_owner_id, body, mentions, created_at) VALUES ('msg_1', 'room_1', 1, 'human', 'own_2', 'hi', '[]', 1);
      INSERT INTO wakes (id, plate, room_id, trigger, message_id, content, event_key, created_at) VALUES ('wake_1', 'AA-AGT-000000', 'room_1', 'mention', 'msg_1', 'hi', 'e1', 1);
      INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES ('wake_2', 'AA-AGT-000000', 'room_1', 'assignment', '{}', 'e2', 1);
      INSERT INTO room_workspaces (room_id, local_path, updated_by, updated_at) VALUES ('room_1', '/src/app', 'own_1', 1);`);
    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST);
    // Nobody is allowed runners by default; the primary owner's right comes from is_primary, not this column.
    expect(db.prepare('SELECT id, allow_runners FROM owners ORDER BY id').all()).toEqual([
      { id: 'own_1', allow_runners: 0 },
      { id: 'own_2', allow_runners: 0 },
    ]);
    expect(db.prepare('SELECT id, status, actor_owner_id FROM wakes ORDER BY seq').all()).toEqual([
      { id: 'wake_1', status: 'queued', actor_owner_id: 'own_2' },
      { id: 'wake_2', status: 'queued', actor_owner_id: null },
    ]);
    expect(db.prepare('SELECT local_path, local_path_by FROM room_workspaces').get()).toEqual({ local_path: '/src/app', local_path_by: 'own_1' });
    expect(() => db.prepare("UPDATE owners SET allow_runners = 2 WHERE id = 'own_2'").run()).toThrow(/CHECK constraint/);
    expect(() =>
      db.prepare("INSERT INTO deleted_files (file_id, room_id, path, file_row, versions, deleted_by_kind, deleted_by_owner_id, deleted_at, purge_at) VALUES ('f', 'room_1', 'p', '{}', '[]', 'robot', 'own_1', 1, 'later')").run(),
    ).toThrow(/CHECK constraint|cannot store TEXT/);
  });
});

describe('0011-write-path', () => {
  it("the wakes' status indexes are partial; every hot query still reads through an index, never the whole log", () => {
    const db = fresh();
    migrate(db);
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'wakes' AND sql IS NOT NULL ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    expect(names).not.toEqual(expect.arrayContaining(['wakes_by_status']));
    expect(names).not.toEqual(expect.arrayContaining(['wakes_by_queue']));
    expect(names).not.toEqual(expect.arrayContaining(['wakes_running_key']));
    expect(names).toEqual(expect.arrayContaining(['wakes_running', 'wakes_queued', 'wakes_by_plate', 'wakes_by_room']));
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill(null)) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    // The statements of wakes/store.ts on the write path and the dispatcher's, as written there.
    expect(plan("SELECT MAX(chain_depth) AS d FROM wakes INDEXED BY wakes_running WHERE status = 'running' AND plate = ?")).toMatch(/USING INDEX wakes_running/);
    expect(plan("SELECT 1 FROM wakes WHERE status = 'running' AND instance_id = ? AND room_id = ? AND host = ? LIMIT 1")).toMatch(/INDEX wakes_running/);
    expect(plan("SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND seq < ? ORDER BY seq LIMIT 1")).toMatch(/INDEX wakes_queued/);
    expect(plan("SELECT 1 FROM wakes WHERE status = 'queued' AND target = 'pull' AND plate = ? AND room_id = ? LIMIT 1")).toMatch(/INDEX wakes_queued/);
    expect(plan('SELECT * FROM wakes WHERE plate = ? AND status = ? ORDER BY seq DESC LIMIT ?')).toMatch(/INDEX wakes_by_plate/);
    expect(plan('SELECT * FROM wakes WHERE plate = ? ORDER BY seq DESC LIMIT ?')).not.toMatch(/TEMP B-TREE|SCAN wakes/);
    db.close();
  });
});

describe('0012-room-changes', () => {
  it('the change log keeps its rows and key as a WITHOUT ROWID table: no separate index, the same lookups by key', () => {
    const db = fresh();
    migrate(db, 11);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    const add = db.prepare('INSERT OR IGNORE INTO room_changes (room_id, version, class, created_at) VALUES (?, ?, ?, ?)');
    add.run('room_1', 1, 'messages', now);
    add.run('room_1', 2, 'board', now);
    add.run('room_1', 2, 'messages', now);
    const before = db.prepare('SELECT * FROM room_changes ORDER BY room_id, version, class').all();
    expect(migrate(db, 12)).toBe(12);
    expect(db.prepare('SELECT * FROM room_changes ORDER BY room_id, version, class').all()).toEqual(before);
    expect(db.prepare("SELECT wr FROM pragma_table_list WHERE name = 'room_changes'").get()).toEqual({ wr: 1 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = 'room_changes'").get()).toEqual({ n: 0 });
    // The key still holds: a second record of the same change is ignored, a room that does not exist refused.
    expect(add.run('room_1', 2, 'board', now).changes).toBe(0);
    expect(() => add.run('room_nope', 3, 'board', now)).toThrow(/FOREIGN KEY/);
    const plan = (sql: string, ...args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    // rooms/store.ts's reads, as written there: through the key, never a scan of the log.
    expect(plan('SELECT DISTINCT class FROM room_changes WHERE room_id = ? AND version > ? ORDER BY class', 'room_1', 0)).toMatch(/SEARCH room_changes USING PRIMARY KEY/);
    expect(plan('SELECT MAX(version) AS v FROM room_changes WHERE room_id = ? AND class = ?', 'room_1', 'board')).toMatch(/SEARCH room_changes USING PRIMARY KEY/);
    db.close();
  });
});

describe('0013-messages-version', () => {
  it("a room's newest message version moves from the change log to the room's row; what changed since a version reads the same", () => {
    const db = fresh();
    migrate(db, 12);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    const room = db.prepare("INSERT INTO rooms (id, name, created_by, created_at, context_version) VALUES (?, 'R', 'own_1', ?, ?)");
    room.run('room_1', now, 3);
    room.run('room_2', now, 1);
    const add = db.prepare('INSERT INTO room_changes (room_id, version, class, created_at) VALUES (?, ?, ?, ?)');
    add.run('room_1', 1, 'messages', now);
    add.run('room_1', 2, 'board', now);
    add.run('room_1', 3, 'messages', now);
    add.run('room_2', 1, 'focus', now);
    const since = (r: string, v: number) => changedClassesSince(db, r, v);
    expect(migrate(db)).toBe(LATEST);
    expect(db.prepare('SELECT id, messages_version FROM rooms ORDER BY id').all()).toEqual([
      { id: 'room_1', messages_version: 3 },
      { id: 'room_2', messages_version: 0 },
    ]);
    expect(db.prepare('SELECT room_id, version, class FROM room_changes ORDER BY room_id, version').all()).toEqual([
      { room_id: 'room_1', version: 2, class: 'board' },
      { room_id: 'room_2', version: 1, class: 'focus' },
    ]);
    expect(since('room_1', 0)).toEqual(['board', 'messages']);
    expect(since('room_1', 2)).toEqual(['messages']);
    expect(since('room_1', 3)).toEqual([]);
    expect(since('room_2', 0)).toEqual(['focus']);
    expect(lastChangeOf(db, 'room_1', 'messages')).toBe(3);
    expect(lastChangeOf(db, 'room_2', 'messages')).toBeNull();
    expect(lastChangeOf(db, 'room_1', 'board')).toBe(2);
    db.close();
  });
});

describe('0014-plain-seq', () => {
  it('mentions and wakes keep every row, index and seq without AUTOINCREMENT; seq goes on from the largest; event keys stay unique but for mentions', () => {
    const db = fresh();
    migrate(db, 13);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    const mention = db.prepare("INSERT INTO mentions (id, plate, room_id, kind, trust_level, created_at) VALUES (?, 'ADA-AGT-000001', 'room_1', 'mention', 'same_owner', ?)");
    const wake = db.prepare(
      "INSERT OR IGNORE INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES (?, 'ADA-AGT-000001', 'room_1', ?, 'hi', ?, ?)",
    );
    for (let i = 1; i <= 3; i++) {
      mention.run(`mention_${i}`, now);
      wake.run(`wake_${i}`, 'mention', `msg:m${i}`, now);
    }
    wake.run('wake_4', 'assignment', 'task:t1:assign:1', now);
    const rows = (t: string) => rowsOf(db, t);
    const indexes = (t: string) => schemaOf(db, 'index', t);
    const before = { mentions: rows('mentions'), wakes: rows('wakes'), mi: indexes('mentions'), wi: indexes('wakes') };
    expect(migrate(db, 14)).toBe(14);
    expect(rows('mentions')).toEqual(before.mentions);
    expect(rows('wakes')).toEqual(before.wakes);
    expect(indexes('mentions')).toEqual(before.mi);
    expect(indexes('wakes').filter((i: any) => i.name !== 'wakes_event')).toEqual(before.wi);
    for (const t of ['mentions', 'wakes']) {
      expect((db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) as { sql: string }).sql).not.toMatch(/AUTOINCREMENT/);
    }
    expect(db.prepare("SELECT name FROM sqlite_sequence WHERE name IN ('mentions', 'wakes')").all()).toEqual([]);
    // seq goes on from the largest, and the id stays unique.
    expect(Number(mention.run('mention_4', now).lastInsertRowid)).toBe(4);
    expect(() => mention.run('mention_4', now)).toThrow(/UNIQUE/);
    expect(Number(wake.run('wake_5', 'paths_free', 'reservation:r1:granted', now).lastInsertRowid)).toBe(5);
    // Every event but a message's mention is still one wake per agent; the retry lookup uses the index.
    expect(wake.run('wake_6', 'assignment', 'task:t1:assign:1', now).changes).toBe(0);
    expect(wake.run('wake_7', 'mention', 'retry:wake_1', now).changes).toBe(1);
    expect(wake.run('wake_8', 'mention', 'retry:wake_1', now).changes).toBe(0);
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT 1 FROM wakes WHERE plate = ? AND event_key = ? AND event_key NOT GLOB 'msg:*'").all('x', 'retry:y') as Array<{
      detail: string;
    }>).map((r) => r.detail);
    expect(plan.join('; ')).toMatch(/USING (COVERING )?INDEX wakes_event/);
    db.close();
  });

  it('no code deletes a mention or a wake: their seq is a cursor that must never be handed out twice', () => {
    const root = fileURLToPath(new URL('../../src-main/', import.meta.url));
    const deleting = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.includes('migrations'))
      .filter((f) => /DELETE FROM (mentions|wakes)\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(deleting).toEqual([]);
    // The check can fail: it finds the statement where one is written.
    expect(/DELETE FROM (mentions|wakes)\b/.test("stmt(db, 'DELETE FROM wakes WHERE seq = ?')")).toBe(true);
  });
});

describe('0015-seq-ids', () => {
  it('wakes and inbox items keep every row and index but the unique one of ids; ids minted before still find their row, new ids carry their seq', () => {
    const db = fresh();
    migrate(db, 14);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    // Ids of the old shape (a ULID); the first happens to read as seq 2 in the new shape, but is row 1's.
    const oldMention = ['mnt_01jz00000000000002cccccccc', 'mnt_01jz000000aaaaaaaaaaaaaaaa'];
    const oldWake = ['wake_01jz00000000000002cccccccc', 'wake_01jz000000bbbbbbbbbbbbbbbb'];
    expect(seqOfId('wake', oldWake[0]!)).toBe(2);
    for (const id of oldMention) db.prepare("INSERT INTO mentions (id, plate, room_id, kind, trust_level, created_at) VALUES (?, 'ADA-AGT-000001', 'room_1', 'mention', 'same_owner', ?)").run(id, now);
    for (const [i, id] of oldWake.entries()) {
      db.prepare("INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES (?, 'ADA-AGT-000001', 'room_1', 'mention', 'hi', ?, ?)").run(id, `msg:m${i}`, now);
    }
    const rows = (t: string) => rowsOf(db, t);
    const indexes = (t: string) => schemaOf(db, 'index', t);
    const autoindexes = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('mentions', 'wakes') AND name LIKE 'sqlite_autoindex%'").all();
    const before = { mentions: rows('mentions'), wakes: rows('wakes'), mi: indexes('mentions'), wi: indexes('wakes') };
    expect(autoindexes()).toHaveLength(2);
    expect(migrate(db, 15)).toBe(15);
    expect(rows('mentions')).toEqual(before.mentions);
    expect(rows('wakes')).toEqual(before.wakes);
    expect(indexes('mentions')).toEqual(before.mi);
    expect(indexes('wakes')).toEqual(before.wi);
    expect(autoindexes()).toEqual([]);

    // Every id minted before still finds its row, through the side table.
    for (const [i, id] of oldWake.entries()) expect(getWake(db, id)?.seq).toBe(i + 1);
    expect(holdWake(db, oldWake[1]!, 'budget')).toBe(true);
    expect(getWake(db, oldWake[1]!)?.status).toBe('held');
    // A new wake and a new item take the next seq, and their ids carry it.
    const wakeId = enqueueWake(db, { plate: 'ADA-AGT-000001', roomId: 'room_1', trigger: 'mention', content: 'hello', eventKey: 'msg:m9' })!;
    expect(wakeId).toMatch(/^wake_[0-9a-z]{26}$/);
    expect(seqOfId('wake', wakeId)).toBe(3);
    expect(getWake(db, wakeId)).toMatchObject({ seq: 3, id: wakeId, content: 'hello' });
    const item = addInboxItem(db, { plate: 'ADA-AGT-000001', roomId: 'room_1', kind: 'mention', trustLevel: 'same_owner' });
    expect(item.seq).toBe(3);
    expect(seqOfId('mnt', item.mention_id)).toBe(3);
    expect(roomOfItem(db, 'ADA-AGT-000001', item.mention_id)).toBe('room_1');
    expect(roomOfItem(db, 'ADA-AGT-000001', oldMention[1]!)).toBe('room_1');
    // An id that carries a row's seq but is not its id finds nothing; nor does any other string.
    const forged = wakeId.slice(0, -8) + (wakeId.endsWith('00000000') ? '11111111' : '00000000');
    expect(getWake(db, forged)).toBeUndefined();
    expect(getWake(db, 'wake_nope')).toBeUndefined();
    expect(roomOfItem(db, 'ADA-AGT-000001', item.mention_id.slice(0, -1) + (item.mention_id.endsWith('0') ? '1' : '0'))).toBeUndefined();
    // Acknowledging by id works for both shapes, and only for the caller's own items.
    expect(ackByIds(db, 'ADA-AGT-000002', [item.mention_id])).toBe(0);
    expect(ackByIds(db, 'ADA-AGT-000001', [item.mention_id, oldMention[0]!, 'mnt_nope'])).toBe(2);
    db.close();
  });
});

describe('0016-message-ids', () => {
  it('messages keep their rows, rowids, indexes and triggers but the unique one of ids; ids minted before still find their message; replies and inbox items no longer need it', () => {
    const db = fresh();
    migrate(db, 15);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    const msg = db.prepare("INSERT INTO messages (rowid, id, room_id, seq, sender_kind, sender_owner_id, body, parent_id, created_at) VALUES (?, ?, 'room_1', ?, 'human', 'own_1', ?, ?, ?)");
    // Rowids with a gap (5, 9) and a first id that reads as row 9 in the new shape but is row 5's.
    const old = ['msg_01jz00000000000009cccccccc', 'msg_01jz000000aaaaaaaaaaaaaaaa'];
    expect(seqOfId('msg', old[0]!)).toBe(9);
    msg.run(5, old[0], 1, 'first needle', null, now);
    msg.run(9, old[1], 2, 'second', old[0], now);
    db.prepare("INSERT INTO mentions (id, plate, room_id, message_id, kind, trust_level, created_at) VALUES ('mnt_1', 'ADA-AGT-000001', 'room_1', ?, 'mention', 'same_owner', ?)").run(old[1], now);
    const rows = (t: string) => rowsOf(db, t);
    const schema = (type: 'index' | 'trigger', t: string) => schemaOf(db, type, t);
    const before = { messages: rows('messages'), mentions: rows('mentions'), mi: schema('index', 'messages'), mt: schema('trigger', 'messages') };
    expect(before.mt.length).toBeGreaterThan(0);

    expect(migrate(db, 16)).toBe(16);
    expect(rows('messages')).toEqual(before.messages);
    expect(rows('mentions')).toEqual(before.mentions);
    expect(schema('index', 'messages')).toEqual(before.mi);
    expect(schema('trigger', 'messages')).toEqual(before.mt);
    const unique = db.prepare("SELECT name FROM pragma_index_list('messages') WHERE \"unique\" = 1").all() as Array<{ name: string }>;
    expect(unique).toHaveLength(1); // UNIQUE (room_id, seq) only
    expect(db.prepare("SELECT name FROM pragma_index_info(?)").all(unique[0]!.name)).toEqual([{ name: 'room_id' }, { name: 'seq' }]);
    expect(db.prepare("SELECT * FROM pragma_foreign_key_list('messages') WHERE \"table\" = 'messages'").all()).toEqual([]);
    expect(db.prepare("SELECT * FROM pragma_foreign_key_list('mentions') WHERE \"table\" = 'messages'").all()).toEqual([]);
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);

    // Ids minted before find their message; a new one carries its rowid; a forged one finds nothing.
    expect(messageKey(db, old[0]!)).toEqual([5, old[0]]);
    expect(getMessage(db, old[1]!)).toMatchObject({ message_id: old[1], seq: 2, parent_id: old[0] });
    const fresh10 = seqId('msg', 10, now);
    msg.run(10, fresh10, 3, 'third', old[1], now);
    expect(getMessage(db, fresh10)).toMatchObject({ message_id: fresh10, seq: 3, body: 'third' });
    expect(getMessage(db, fresh10.slice(0, -1) + (fresh10.endsWith('0') ? '1' : '0'))).toBeUndefined();
    expect(getMessage(db, 'msg_nope')).toBeUndefined();
    const inbox = messagesForInbox(db, [fresh10, old[0]!, 'msg_nope']).map((m) => m.id).sort();
    expect(inbox).toEqual([fresh10, old[0]].sort());
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT m.id FROM json_each(?) k JOIN messages m ON m.rowid = k.value ->> 0 AND m.id = k.value ->> 1").all('[]') as Array<{ detail: string }>).map((r) => r.detail).join('; ');
    expect(plan).toMatch(/SEARCH m USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    db.close();
  });
});

describe('0017-parked-deliveries', () => {
  it('messages gain an empty `parked` column; every row, index and trigger stays; a start finds nothing to write', () => {
    const db = fresh();
    migrate(db, 16);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    db.prepare("INSERT INTO messages (rowid, id, room_id, seq, sender_kind, sender_owner_id, body, created_at) VALUES (1, ?, 'room_1', 1, 'human', 'own_1', 'hello', ?)").run(seqId('msg', 1, now), now);
    const before = { messages: rowsOf(db, 'messages'), mi: schemaOf(db, 'index', 'messages'), mt: schemaOf(db, 'trigger', 'messages') };
    expect(migrate(db, 17)).toBe(17);
    expect(rowsOf(db, 'messages')).toEqual(before.messages.map((r) => ({ ...(r as Record<string, unknown>), parked: null })));
    expect(schemaOf(db, 'index', 'messages')).toEqual(before.mi);
    expect(schemaOf(db, 'trigger', 'messages')).toEqual(before.mt);
    expect(writeParkedLeftBehind(db)).toBe(0);
    db.close();
  });
});

describe('0018-worktrees', () => {
  it('tasks, runners and wakes keep every row, gain empty worktree, work and transcript columns; transcripts are bounded by kind', () => {
    const db = fresh();
    migrate(db, 17);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    db.prepare(
      "INSERT INTO tasks (id, room_id, title, definition_of_done, assignee, status, consent_state, created_by_kind, created_by_owner, created_at, updated_at) VALUES ('task_1', 'room_1', 'CHANGELOG', 'done', 'ADA-AGT-000001', 'todo', 'auto', 'human', 'own_1', ?, ?)",
    ).run(now, now);
    db.prepare("INSERT INTO runners (plate, host, command, args, timeout_ms, env, created_at, updated_at) VALUES ('ADA-AGT-000001', 'codex', 'codex', '[]', 1000, '{}', ?, ?)").run(now, now);
    db.prepare("INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, created_at) VALUES (?, 'ADA-AGT-000001', 'room_1', 'mention', 'hi', 'msg:m1', ?)").run(seqId('wake', 1, now), now);
    const before = { tasks: rowsOf(db, 'tasks'), runners: rowsOf(db, 'runners'), wakes: rowsOf(db, 'wakes') };
    expect(migrate(db, 18)).toBe(18);
    const plus = (rows: unknown[], extra: Record<string, unknown>) => rows.map((r) => ({ ...(r as Record<string, unknown>), ...extra }));
    expect(rowsOf(db, 'tasks')).toEqual(plus(before.tasks, { worktree: null, worktree_reason: null, worktree_removed_at: null }));
    expect(rowsOf(db, 'runners')).toEqual(plus(before.runners, { work: null }));
    expect(rowsOf(db, 'wakes')).toEqual(plus(before.wakes, { transcript_dropped: 0, last_output_at: null }));
    expect(() => db.prepare("UPDATE runners SET work = 'everything'").run()).toThrow(/CHECK/);
    const wake = seqId('wake', 1, now);
    db.prepare("INSERT INTO wake_transcripts (wake_id, seq, at, kind, summary, bytes) VALUES (?, 1, ?, 'tool_call', 'Write a.md', 40)").run(wake, now);
    expect(() => db.prepare("INSERT INTO wake_transcripts (wake_id, seq, at, kind, summary, bytes) VALUES (?, 2, ?, 'shell', 'x', 1)").run(wake, now)).toThrow(/CHECK/);
    db.close();
  });
});

describe('0019-merges', () => {
  it('tasks keep every row and gain empty merge and follow-up columns; reviews are kept by verdict', () => {
    const db = fresh();
    migrate(db, 18);
    const now = Date.now();
    seedOwnerRoomAgent(db, now);
    db.prepare(
      "INSERT INTO tasks (id, room_id, title, definition_of_done, assignee, status, consent_state, created_by_kind, created_by_owner, created_at, updated_at, worktree) VALUES ('task_1', 'room_1', 'CHANGELOG', 'done', 'ADA-AGT-000001', 'todo', 'auto', 'human', 'own_1', ?, ?, '{}')",
    ).run(now, now);
    const before = rowsOf(db, 'tasks');
    expect(migrate(db, 19)).toBe(19);
    expect(rowsOf(db, 'tasks')).toEqual(before.map((r) => ({ ...(r as Record<string, unknown>), merged_commit: null, merged_at: null, merged_by: null, follow_up_of: null, changed_paths: null })));
    db.prepare("INSERT INTO task_reviews (id, task_id, room_id, owner_id, verdict, comments, created_at) VALUES ('rv_1', 'task_1', 'room_1', 'own_1', 'approve', '[]', ?)").run(now);
    expect(() => db.prepare("INSERT INTO task_reviews (id, task_id, room_id, owner_id, verdict, comments, created_at) VALUES ('rv_2', 'task_1', 'room_1', 'own_1', 'lgtm', '[]', ?)").run(now)).toThrow(/CHECK/);
    db.close();
  });
});
