import type { Migration } from '../migrate.js';

/**
 * Full-text search (docs/search.md): one FTS5 table over messages, tasks (title; detail and
 * handoff notes), decisions and files (path; text contents written inline), kept in step by
 * triggers inside the writers' own transactions. An entry's rowid is its source row's rowid
 * times 8 plus its kind (plus 2^50 for everything but messages), so an update or delete finds
 * its entry without a scan, and messages and the rest are two rowid ranges (search ranks the
 * newest matches of each: see search/service.ts).
 * Plus the paging indexes (a lane page and the done page read only their page; counts from an index).
 */
export const SEARCH_KIND = { message: 1, task: 2, decision: 3, file: 4 } as const;
/** 2^50: rowids of tasks, decisions and files start here; messages stay below. */
export const OTHER_BASE = 1125899906842624;
const B = OTHER_BASE;

const BATCH = 20_000;

export const migration0009: Migration = {
  version: 9,
  name: '0009-search',
  up(db, progress) {
    db.exec(`
      CREATE INDEX tasks_lane ON tasks(room_id, assignee, sort_order IS NULL, sort_order, created_at, id);
      CREATE INDEX tasks_done ON tasks(room_id, completed_at, id) WHERE status = 'done';
      -- Lane counts from the index alone; and the few files that have no released version yet.
      CREATE INDEX tasks_count ON tasks(room_id, status, archived_at, assignee);
      CREATE INDEX file_versions_quarantined ON file_versions(file_id) WHERE status = 'quarantined';

      CREATE VIRTUAL TABLE search_fts USING fts5(
        title, body, kind UNINDEXED, room_id UNINDEXED, created_at UNINDEXED,
        tokenize = 'unicode61 remove_diacritics 2'
      );
      -- Titles (task titles, file paths) weigh more than bodies.
      INSERT INTO search_fts(search_fts, rank) VALUES ('rank', 'bm25(4.0, 1.0)');

      CREATE TRIGGER search_messages_ai AFTER INSERT ON messages BEGIN
        INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at)
        VALUES (new.rowid * 8 + 1, '', new.body, 'message', new.room_id, new.created_at);
      END;
      CREATE TRIGGER search_messages_au AFTER UPDATE OF body ON messages BEGIN
        UPDATE search_fts SET body = new.body WHERE rowid = new.rowid * 8 + 1;
      END;
      CREATE TRIGGER search_messages_ad AFTER DELETE ON messages BEGIN
        DELETE FROM search_fts WHERE rowid = old.rowid * 8 + 1;
      END;

      CREATE TRIGGER search_tasks_ai AFTER INSERT ON tasks BEGIN
        INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at)
        VALUES (${B} + new.rowid * 8 + 2, new.title, concat_ws(char(10), new.detail, new.handoff_notes), 'task', new.room_id, new.created_at);
      END;
      CREATE TRIGGER search_tasks_au AFTER UPDATE OF title, detail, handoff_notes ON tasks BEGIN
        UPDATE search_fts SET title = new.title, body = concat_ws(char(10), new.detail, new.handoff_notes) WHERE rowid = ${B} + new.rowid * 8 + 2;
      END;
      CREATE TRIGGER search_tasks_ad AFTER DELETE ON tasks BEGIN
        DELETE FROM search_fts WHERE rowid = ${B} + old.rowid * 8 + 2;
      END;

      CREATE TRIGGER search_decisions_ai AFTER INSERT ON room_decisions BEGIN
        INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at)
        VALUES (${B} + new.seq * 8 + 3, '', new.text, 'decision', new.room_id, new.created_at);
      END;
      CREATE TRIGGER search_decisions_au AFTER UPDATE OF text ON room_decisions BEGIN
        UPDATE search_fts SET body = new.text WHERE rowid = ${B} + new.seq * 8 + 3;
      END;
      CREATE TRIGGER search_decisions_ad AFTER DELETE ON room_decisions BEGIN
        DELETE FROM search_fts WHERE rowid = ${B} + old.seq * 8 + 3;
      END;

      -- A file's entry holds its path; its text contents are written by the files capability.
      CREATE TRIGGER search_files_ai AFTER INSERT ON files BEGIN
        INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at)
        VALUES (${B} + new.rowid * 8 + 4, new.path, '', 'file', new.room_id, new.created_at);
      END;
      CREATE TRIGGER search_files_au AFTER UPDATE OF path ON files BEGIN
        UPDATE search_fts SET title = new.path WHERE rowid = ${B} + new.rowid * 8 + 4;
      END;
      CREATE TRIGGER search_files_ad AFTER DELETE ON files BEGIN
        DELETE FROM search_fts WHERE rowid = ${B} + old.rowid * 8 + 4;
      END;
    `);

    // Index what an existing home already holds, in batches, reporting progress.
    const sources = [
      { table: 'messages', key: 'rowid', sql: `SELECT rowid * 8 + 1, '', body, 'message', room_id, created_at FROM messages` },
      { table: 'tasks', key: 'rowid', sql: `SELECT ${B} + rowid * 8 + 2, title, concat_ws(char(10), detail, handoff_notes), 'task', room_id, created_at FROM tasks` },
      { table: 'room_decisions', key: 'seq', sql: `SELECT ${B} + seq * 8 + 3, '', text, 'decision', room_id, created_at FROM room_decisions` },
      { table: 'files', key: 'rowid', sql: `SELECT ${B} + rowid * 8 + 4, path, '', 'file', room_id, created_at FROM files` },
    ];
    const total = sources.reduce((n, s) => n + (db.prepare(`SELECT count(*) AS n FROM ${s.table}`).get() as { n: number }).n, 0);
    let done = 0;
    for (const s of sources) {
      let after = -1;
      const insert = db.prepare(
        `INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at) ${s.sql} WHERE ${s.key} > ? ORDER BY ${s.key} LIMIT ${BATCH}`,
      );
      const last = db.prepare(`SELECT max(${s.key}) AS k FROM (SELECT ${s.key} FROM ${s.table} WHERE ${s.key} > ? ORDER BY ${s.key} LIMIT ${BATCH})`);
      for (;;) {
        const k = (last.get(after) as { k: number | null }).k;
        if (k === null) break;
        done += insert.run(after).changes;
        after = k;
        progress?.(done, total);
      }
    }
  },
};
