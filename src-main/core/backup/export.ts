import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmdirSync, rmSync, type WriteStream } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import Database from 'better-sqlite3';
import { TarWriter } from './tar.js';
import { checkFreshDest, copyFilePrivate, createPrivateWriteStream, mkdirPrivate, mkdirsPrivate, writeFilePrivate } from './private-fs.js';

/**
 * `agent-rooms export ROOM [DEST]`: one room as plain files a person (or another program)
 * can read without agent-rooms: JSON lines for messages, tasks, decisions and file versions,
 * the current version of every file under `files/`, and a README saying what is where.
 * DEST ending in `.tar` gives one tar archive instead of a folder.
 *
 * It reads through its own read-only connection inside one read transaction (a consistent
 * view; safe alongside a running server, which it never blocks). Everything is written into a
 * fresh private folder beside DEST (0700, files 0600, never through a link: private-fs.ts) and
 * renamed to DEST at the end; a DEST that is a symbolic link is refused.
 */
export interface ExportResult {
  room: { id: string; name: string };
  path: string;
  messages: number;
  tasks: number;
  decisions: number;
  files: number;
  missing_files: string[];
}

type Row = Record<string, unknown>;

const SECRETISH = /token|hash|secret|credential|key/i;
const JSON_COLUMNS = new Set(['mentions', 'artifacts']);

/** A row as readable JSON: `*_at` times as ISO strings, JSON columns parsed, nothing secret-looking. */
function readable(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (SECRETISH.test(k)) continue;
    if (k.endsWith('_at') && typeof v === 'number') out[k] = new Date(v).toISOString();
    else if (JSON_COLUMNS.has(k) && typeof v === 'string') {
      try {
        out[k] = JSON.parse(v);
      } catch {
        out[k] = v;
      }
    } else out[k] = v;
  }
  return out;
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

async function writeLines(file: string, rows: Iterable<Row>, map: (r: Row) => Row = readable): Promise<number> {
  const out: WriteStream = createPrivateWriteStream(file);
  let n = 0;
  let buf: string[] = [];
  const flush = () =>
    new Promise<void>((res, rej) => {
      const chunk = buf.join('');
      buf = [];
      out.write(chunk, (err) => (err ? rej(err) : res()));
    });
  for (const r of rows) {
    buf.push(JSON.stringify(map(r)) + '\n');
    n++;
    if (buf.length >= 1000) await flush();
  }
  if (buf.length) await flush();
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
  return n;
}

/** A room file path as a safe relative path under files/ (room paths are already normalised; this is belt and braces). */
function safeRel(path: string): string {
  return path
    .split('/')
    .filter((p) => p && p !== '.' && p !== '..')
    .map((p) => p.replace(/[\0]/g, '_'))
    .join('/');
}

const README = (room: Row, at: string) => `Agent Rooms export of room "${String(room.name)}" (${String(room.id)}), made ${at}.

room.json        the room, its members (humans and agents), its focus
messages.jsonl   every message, oldest first, one JSON object per line (seq, sender, body, mentions, created_at)
tasks.jsonl      every task with its status, assignee, depends_on, summary and handoff notes
handoffs.jsonl   handoff notes passed from a finished task to the tasks it unblocked
decisions.jsonl  the room's durable decisions, oldest first
files.jsonl      every file with all its versions (size, sha256, uploader, times)
files/           the current version of each file, under its room path

Times are UTC (ISO 8601). Nothing secret (tokens, credentials, keys) is in an export.
`;

export async function exportRoom(homeArg: string, roomArg: string, destArg?: string): Promise<ExportResult> {
  const home = resolve(homeArg);
  const dbFile = join(home, 'rooms.db');
  if (!existsSync(dbFile)) throw new Error(`no agent-rooms database at ${dbFile}; give the home with --home DIR`);
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  try {
    db.exec('BEGIN');
    const matches = db.prepare('SELECT * FROM rooms WHERE id = ? OR name = ? ORDER BY created_at').all(roomArg, roomArg) as Row[];
    if (matches.length === 0) throw new Error(`no room "${roomArg}" in ${home} (give a room id or its exact name)`);
    const byId = matches.find((r) => r.id === roomArg);
    if (!byId && matches.length > 1) throw new Error(`${matches.length} rooms are named "${roomArg}": ${matches.map((r) => String(r.id)).join(', ')}; give the id`);
    const room = byId ?? matches[0]!;
    const roomId = String(room.id);
    const at = new Date().toISOString();
    const slug = String(room.name).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || roomId;
    const dest = resolve(destArg ?? `agent-rooms-export-${slug}-${at.slice(0, 10)}`);
    const asTar = dest.endsWith('.tar');
    checkFreshDest(dest, 'export', (m) => new Error(m));
    const h = resolve(home);
    if (dest === h || dest.startsWith(h + sep)) throw new Error(`an export cannot go inside the home (${dest}); choose a folder outside it`);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    // A fresh private folder beside DEST (same filesystem, so the last step is a rename); its random name and 0700 keep others out.
    const stage = mkdtempSync(join(dirname(dest), '.agent-rooms-export-'));
    const folder = join(stage, 'room');
    mkdirPrivate(folder);

    try {
      const humans = hasTable(db, 'room_humans')
        ? db.prepare('SELECT rh.owner_id, o.name, rh.role FROM room_humans rh JOIN owners o ON o.id = rh.owner_id WHERE rh.room_id = ?').all(roomId)
        : [];
      const agents = hasTable(db, 'room_agents')
        ? db.prepare('SELECT ra.plate, a.name, a.owner_id FROM room_agents ra LEFT JOIN agents a ON a.plate = ra.plate WHERE ra.room_id = ?').all(roomId)
        : [];
      const focus = hasTable(db, 'room_focus') ? db.prepare('SELECT focus, updated_at FROM room_focus WHERE room_id = ?').get(roomId) : undefined;
      writeFilePrivate(
        join(folder, 'room.json'),
        JSON.stringify({ ...readable(room), exported_at: at, humans, agents, focus: focus ? readable(focus as Row) : null }, null, 2) + '\n',
      );
      writeFilePrivate(join(folder, 'README.txt'), README(room, at));

      // `parked` is the server's own bookkeeping (messages/parked.ts), not part of the room's record.
      const messages = await writeLines(join(folder, 'messages.jsonl'), db.prepare('SELECT * FROM messages WHERE room_id = ? ORDER BY seq').iterate(roomId) as Iterable<Row>, ({ parked: _parked, ...r }) =>
        readable(r),
      );
      const deps = new Map<string, string[]>();
      if (hasTable(db, 'task_deps')) {
        for (const d of db.prepare('SELECT d.task_id, d.depends_on FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE t.room_id = ?').all(roomId) as Row[]) {
          const k = String(d.task_id);
          deps.set(k, [...(deps.get(k) ?? []), String(d.depends_on)]);
        }
      }
      const tasks = hasTable(db, 'tasks')
        ? await writeLines(join(folder, 'tasks.jsonl'), db.prepare('SELECT * FROM tasks WHERE room_id = ? ORDER BY created_at, id').all(roomId) as Row[], (r) => ({
            ...readable(r),
            depends_on: deps.get(String(r.id)) ?? [],
          }))
        : 0;
      if (hasTable(db, 'task_handoffs')) await writeLines(join(folder, 'handoffs.jsonl'), db.prepare('SELECT * FROM task_handoffs WHERE room_id = ? ORDER BY created_at').all(roomId) as Row[]);
      const decisions = hasTable(db, 'room_decisions')
        ? await writeLines(join(folder, 'decisions.jsonl'), db.prepare('SELECT * FROM room_decisions WHERE room_id = ? ORDER BY seq').all(roomId) as Row[])
        : 0;

      const missing: string[] = [];
      let fileCount = 0;
      if (hasTable(db, 'files')) {
        const files = db.prepare('SELECT * FROM files WHERE room_id = ? ORDER BY path').all(roomId) as Row[];
        const versions = db.prepare('SELECT * FROM file_versions WHERE file_id = ? ORDER BY version');
        const records: Row[] = [];
        for (const f of files) {
          const vs = versions.all(f.id) as Row[];
          records.push({ ...readable(f), versions: vs.map(readable) });
          const current = [...vs].reverse().find((v) => v.status === 'ready');
          if (!current) continue;
          const sha = String(current.sha256);
          const blob = join(home, 'blobs', sha.slice(0, 2), sha);
          const rel = safeRel(String(f.path));
          if (!rel) continue;
          if (!existsSync(blob)) {
            missing.push(String(f.path));
            continue;
          }
          const parts = rel.split('/');
          const dir = mkdirsPrivate(folder, ['files', ...parts.slice(0, -1)]);
          copyFilePrivate(blob, join(dir, parts[parts.length - 1]!));
          fileCount++;
        }
        await writeLines(join(folder, 'files.jsonl'), records, (r) => r);
      }
      db.exec('COMMIT');

      if (asTar) {
        const tarFile = join(stage, 'export.tar');
        await writeTar(folder, tarFile, basename(dest).replace(/\.tar$/, ''));
        renameSync(tarFile, dest);
      } else {
        // An empty real folder at DEST (checked above) gives way; a link there makes rmdir fail rather than follow it.
        if (existsSync(dest) && lstatSync(dest).isDirectory()) rmdirSync(dest);
        renameSync(folder, dest);
      }
      return { room: { id: roomId, name: String(room.name) }, path: dest, messages, tasks, decisions, files: fileCount, missing_files: missing };
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  }
}

async function writeTar(folder: string, tarFile: string, root: string) {
  const tar = new TarWriter(createPrivateWriteStream(tarFile));
  const walk = async (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const r = `${rel}/${name}`;
      const st = lstatSync(p);
      if (st.isDirectory()) {
        await tar.dir(r, st.mtimeMs);
        await walk(p, r);
      } else if (st.isFile()) await tar.file(r, p, st.size, st.mtimeMs);
    }
  };
  await tar.dir(root);
  await walk(folder, root);
  await tar.finish();
}
