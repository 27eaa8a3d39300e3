import type Database from 'better-sqlite3';

/**
 * SQLite cannot change a column's constraints in place: the documented way is a new table, the
 * rows copied, the old table dropped and the new one renamed. `rebuildTable` does it from the
 * table's own stored definition, so columns that other migrations added are kept whatever order
 * they landed in: `edit` changes the CREATE TABLE text (it must keep the columns and their
 * order), and the indexes and triggers are created again from their stored text, except the
 * indexes `dropIndexes` names. The table's AUTOINCREMENT counter is restored if the new table
 * keeps one (`keepCounter`). `keepRowid` copies each row's rowid too, for a table whose rowid is
 * not a column of its own but is referred to (the search index keys messages by theirs).
 */
/**
 * A table definition's edit for rebuildTable: each `[from, to]` replaced once, in order; throws
 * when one is not there (the definition is not what the migration was written for).
 */
export function replacing(table: string, ...changes: Array<[from: string, to: string]>): (createSql: string) => string {
  return (sql) =>
    changes.reduce((out, [from, to]) => {
      const next = out.replace(from, to);
      if (next === out) throw new Error(`${table}: no "${from}" to change`);
      return next;
    }, sql);
}

export function rebuildTable(
  db: Database.Database,
  table: string,
  edit: (createSql: string) => string,
  opts: { keepCounter?: boolean; dropIndexes?: readonly string[]; keepRowid?: boolean } = {},
): void {
  const stored = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined;
  if (!stored) throw new Error(`no table ${table} to rebuild`);
  const head = new RegExp(`^CREATE TABLE "?${table}"?`);
  if (!head.test(stored.sql)) throw new Error(`unexpected definition of ${table}`);
  const created = edit(stored.sql).replace(head, `CREATE TABLE ${table}_rebuilt`);
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table) as Array<{
    name: string;
    sql: string;
  }>;
  const triggers = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?").all(table) as Array<{ sql: string }>;
  const counter = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as { seq: number } | undefined;
  db.exec(created);
  if (opts.keepRowid) {
    const cols = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>).map((c) => `"${c.name}"`).join(', ');
    db.exec(`INSERT INTO ${table}_rebuilt (rowid, ${cols}) SELECT rowid, ${cols} FROM ${table}`);
  } else {
    db.exec(`INSERT INTO ${table}_rebuilt SELECT * FROM ${table}`);
  }
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${table}_rebuilt RENAME TO ${table}`);
  for (const i of indexes) if (!opts.dropIndexes?.includes(i.name)) db.exec(i.sql);
  for (const t of triggers) db.exec(t.sql);
  db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(table);
  if (counter && opts.keepCounter) db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, counter.seq);
}
