import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src-main/core/db/migrate.js';
import { CAPABILITIES, INFRASTRUCTURE, TABLE_EXCEPTIONS, TABLE_OWNERS, folderOf } from '../../src-main/core/layering.mjs';

// Each table belongs to one folder's store; other folders call its functions (docs/architecture.md).
// The owners and the few exceptions are data in src-main/core/layering.mjs.

const CORE = fileURLToPath(new URL('../../src-main/core/', import.meta.url));

/** The tables the migrations leave behind (an FTS5 table's own shadow tables aside). */
function migratedTables(): string[] {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string; sql: string }>;
    const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name);
    return rows.map((r) => r.name).filter((n) => !virtual.some((v) => n.startsWith(`${v}_`))).sort();
  } finally {
    db.close();
  }
}

/** Comment lines and blocks that start a line (JSDoc, `//`): prose may say "FROM tasks" without being SQL. */
function withoutComments(source: string): string {
  return source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The tables a source names in SQL: after FROM, JOIN, INTO, UPDATE or DELETE FROM (the core writes SQL in upper case). */
export function tablesNamed(source: string, tables: readonly string[]): string[] {
  const code = withoutComments(source);
  return tables.filter((t) => new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|DELETE FROM)\\s+${t}\\b`).test(code));
}

/** Every .ts under the core but the migrations (which create the tables), relative with '/'. */
function coreSources(dir = CORE): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'migrations') out.push(...coreSources(p));
    } else if (e.name.endsWith('.ts')) out.push(relative(CORE, p).split(sep).join('/'));
  }
  return out.sort();
}

function excepted(file: string, table: string): boolean {
  return TABLE_EXCEPTIONS.some((e) => e.file === file && (e.tables === '*' || e.tables.includes(table)));
}

describe('each table belongs to one capability', () => {
  const tables = migratedTables();

  it('every table the migrations create has an owner, and every owner is a capability folder', () => {
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((t) => !(t in TABLE_OWNERS)), 'tables without an owner in src-main/core/layering.mjs').toEqual([]);
    expect(Object.keys(TABLE_OWNERS).filter((t) => !tables.includes(t)), 'owners of tables the migrations do not create').toEqual([]);
    const folders = new Set([...Object.keys(CAPABILITIES), ...Object.keys(INFRASTRUCTURE)]);
    for (const [table, owner] of Object.entries(TABLE_OWNERS)) {
      expect(folders.has(owner), `${table}: owner ${owner}`).toBe(true);
      expect(existsSync(join(CORE, owner)), `${table}: folder ${owner}/`).toBe(true);
    }
  });

  it('no SQL names a table outside its owner’s folder (the listed exceptions aside)', () => {
    const outside: string[] = [];
    for (const file of coreSources()) {
      const folder = folderOf(file);
      for (const table of tablesNamed(readFileSync(join(CORE, file), 'utf8'), tables)) {
        if (TABLE_OWNERS[table] !== folder && !excepted(file, table)) outside.push(`${file} names ${table} (owner: ${TABLE_OWNERS[table]}/)`);
      }
    }
    expect(outside, 'call the owner’s store function instead (or, if a query must stay one, use the condition its store exports)').toEqual([]);
  });

  it('the exceptions are few, each with its reason, and each still needed', () => {
    expect(TABLE_EXCEPTIONS.length).toBeLessThanOrEqual(5);
    for (const e of TABLE_EXCEPTIONS) {
      expect(e.reason.length, e.file).toBeGreaterThan(40);
      expect(existsSync(join(CORE, e.file)), e.file).toBe(true);
      const foreign = tablesNamed(readFileSync(join(CORE, e.file), 'utf8'), tables).filter((t) => TABLE_OWNERS[t] !== folderOf(e.file));
      expect(foreign.length, `${e.file} no longer names another capability's table: drop its exception`).toBeGreaterThan(0);
      if (e.tables !== '*') expect(e.tables.filter((t) => !foreign.includes(t)), `${e.file}: tables it no longer names`).toEqual([]);
    }
  });

  it('the scan sees SQL in any string form, and not prose', () => {
    const known = ['tasks', 'room_agents', 'messages'];
    expect(tablesNamed("stmt(db, 'SELECT id FROM tasks WHERE room_id = ?')", known)).toEqual(['tasks']);
    expect(tablesNamed('const q = `SELECT 1 FROM room_agents ra\n  JOIN messages m ON m.id = ra.x`;', known)).toEqual(['room_agents', 'messages']);
    expect(tablesNamed("stmt(db, \"UPDATE tasks SET x = 1\"); stmt(db, 'DELETE FROM messages')", known)).toEqual(['tasks', 'messages']);
    expect(tablesNamed("db.exec('INSERT INTO room_agents VALUES (1)')", known)).toEqual(['room_agents']);
    expect(tablesNamed('/** Reads FROM tasks of the room. */\n// JOIN messages later\nconst s = "write them into messages";', known)).toEqual([]);
    expect(tablesNamed("stmt(db, 'SELECT * FROM tasks_archive')", known)).toEqual([]);
  });
});
