import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';

export interface FileRow {
  id: string;
  room_id: string;
  path: string;
  next_version: number;
  created_at: number;
  updated_at: number;
}

export type FileKind = 'inline' | 'presigned';
export type FileStatus = 'ready' | 'quarantined';

export interface VersionRow {
  file_id: string;
  version: number;
  kind: FileKind;
  status: FileStatus;
  quarantine_reason: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  received_bytes: number | null;
  received_sha256: string | null;
  uploader_kind: 'agent' | 'human';
  uploader_plate: string | null;
  uploader_owner_id: string;
  created_at: number;
  ready_at: number | null;
}

/** Who acts on files: an agent (by plate) or a human owner. */
export type FileActor = { kind: 'agent'; plate: string; ownerId: string } | { kind: 'human'; ownerId: string };

export function fileById(db: Db, id: string): FileRow | undefined {
  return stmt(db, 'SELECT * FROM files WHERE id = ?').get(id) as FileRow | undefined;
}

export function fileByPath(db: Db, roomId: string, path: string): FileRow | undefined {
  return stmt(db, 'SELECT * FROM files WHERE room_id = ? AND path = ?').get(roomId, path) as FileRow | undefined;
}

export function insertFile(db: Db, f: { id: string; roomId: string; path: string; now: number }): FileRow {
  stmt(db, 'INSERT INTO files (id, room_id, path, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(f.id, f.roomId, f.path, f.now, f.now);
  return fileById(db, f.id)!;
}

/** The next version number of a file (numbers are never reused, even after a failed upload). */
export function allocateVersion(db: Db, fileId: string, now: number): number {
  const r = stmt(db, 'UPDATE files SET next_version = next_version + 1, updated_at = ? WHERE id = ? RETURNING next_version - 1 AS v').get(
    now,
    fileId,
  ) as { v: number };
  return r.v;
}

export function insertVersion(db: Db, v: Omit<VersionRow, 'received_bytes' | 'received_sha256' | 'ready_at'> & { ready_at: number | null }): void {
  stmt(
    db,
    `INSERT INTO file_versions (file_id, version, kind, status, quarantine_reason, filename, content_type, size_bytes, sha256,
       uploader_kind, uploader_plate, uploader_owner_id, created_at, ready_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    v.file_id,
    v.version,
    v.kind,
    v.status,
    v.quarantine_reason,
    v.filename,
    v.content_type,
    v.size_bytes,
    v.sha256,
    v.uploader_kind,
    v.uploader_plate,
    v.uploader_owner_id,
    v.created_at,
    v.ready_at,
  );
}

export function getVersion(db: Db, fileId: string, version: number): VersionRow | undefined {
  return stmt(db, 'SELECT * FROM file_versions WHERE file_id = ? AND version = ?').get(fileId, version) as VersionRow | undefined;
}

export function versionsOf(db: Db, fileId: string): VersionRow[] {
  return stmt(db, 'SELECT * FROM file_versions WHERE file_id = ? ORDER BY version').all(fileId) as VersionRow[];
}

/** The current version: the newest one that is ready. */
export function currentVersion(db: Db, fileId: string): VersionRow | undefined {
  return stmt(db, "SELECT * FROM file_versions WHERE file_id = ? AND status = 'ready' ORDER BY version DESC LIMIT 1").get(fileId) as
    | VersionRow
    | undefined;
}

/** The smallest string above every string that starts with `prefix` (undefined: no such bound is cheap to name). */
function prefixUpper(prefix: string): string | undefined {
  if (!prefix) return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  // Surrogates and U+FFFF do not increment into the next UTF-8 sequence; those prefixes scan to the end.
  if (last >= 0xd800 && last <= 0xdfff) return undefined;
  if (last === 0xffff) return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

export interface FilePageQuery {
  roomId: string;
  prefix: string;
  /** The last path of the previous page. */
  after?: string;
  limit: number;
  /** An agent sees files with a ready version, and its own quarantined uploads; humans see all. */
  plate?: string;
}

const VISIBLE_SQL = `(@plate IS NULL OR EXISTS (SELECT 1 FROM file_versions v WHERE v.file_id = f.id
  AND (v.status = 'ready' OR (v.uploader_kind = 'agent' AND v.uploader_plate = @plate))))`;

/** One page of a room's files by path (keyset on the unique path: stable across inserts and deletes). */
export function filesPage(db: Db, q: FilePageQuery): FileRow[] {
  return stmt(
    db,
    `SELECT f.* FROM files f WHERE f.room_id = @room AND f.path >= @prefix AND (@upper IS NULL OR f.path < @upper)
       AND substr(f.path, 1, @plen) = @prefix AND (@after IS NULL OR f.path > @after) AND ${VISIBLE_SQL}
     ORDER BY f.path LIMIT @limit`,
  ).all({
    room: q.roomId,
    prefix: q.prefix,
    upper: prefixUpper(q.prefix) ?? null,
    plen: q.prefix.length,
    after: q.after ?? null,
    plate: q.plate ?? null,
    limit: q.limit,
  }) as FileRow[];
}

/**
 * How many files the page's query matches in all: every file under the prefix (from the
 * (room_id, path) index alone), less, for an agent, those it may not see; only files without a
 * released version can be hidden, and those are found through the small quarantined-version index.
 */
export function filesCount(db: Db, q: Omit<FilePageQuery, 'after' | 'limit'>): number {
  const args = { room: q.roomId, prefix: q.prefix, upper: prefixUpper(q.prefix) ?? null, plen: q.prefix.length };
  const range = `f.room_id = @room AND f.path >= @prefix AND (@upper IS NULL OR f.path < @upper) AND substr(f.path, 1, @plen) = @prefix`;
  const all = (stmt(db, `SELECT count(*) AS n FROM files f WHERE ${range}`).get(args) as { n: number }).n;
  if (q.plate === undefined) return all;
  const hidden = (
    stmt(
      db,
      // CROSS JOIN keeps the quarantined versions (few) as the driving side, not the files (many).
      `SELECT count(DISTINCT f.id) AS n FROM file_versions q CROSS JOIN files f
       WHERE q.status = 'quarantined' AND f.id = q.file_id AND ${range}
         AND NOT EXISTS (SELECT 1 FROM file_versions v WHERE v.file_id = f.id
           AND (v.status = 'ready' OR (v.uploader_kind = 'agent' AND v.uploader_plate = @plate)))`,
    ).get({ ...args, plate: q.plate }) as { n: number }
  ).n;
  return all - hidden;
}

/** Files of a room whose path starts with the prefix, by path. */
export function filesOfRoom(db: Db, roomId: string, prefix: string): FileRow[] {
  return stmt(db, 'SELECT * FROM files WHERE room_id = ? AND substr(path, 1, ?) = ? ORDER BY path').all(
    roomId,
    prefix.length,
    prefix,
  ) as FileRow[];
}

export function setReceived(db: Db, fileId: string, version: number, bytes: number, sha256: string): void {
  stmt(
    db,
    "UPDATE file_versions SET received_bytes = ?, received_sha256 = ?, quarantine_reason = 'awaiting_completion' WHERE file_id = ? AND version = ? AND status = 'quarantined'",
  ).run(bytes, sha256, fileId, version);
}

export function setQuarantineReason(db: Db, fileId: string, version: number, reason: string, clearReceived: boolean): void {
  stmt(
    db,
    `UPDATE file_versions SET quarantine_reason = ?,
       received_bytes = CASE WHEN ? THEN NULL ELSE received_bytes END,
       received_sha256 = CASE WHEN ? THEN NULL ELSE received_sha256 END
     WHERE file_id = ? AND version = ?`,
  ).run(reason, clearReceived ? 1 : 0, clearReceived ? 1 : 0, fileId, version);
}

export function markReady(db: Db, fileId: string, version: number, now: number): void {
  stmt(db, "UPDATE file_versions SET status = 'ready', quarantine_reason = NULL, ready_at = ? WHERE file_id = ? AND version = ?").run(
    now,
    fileId,
    version,
  );
  stmt(db, 'UPDATE files SET updated_at = ? WHERE id = ?').run(now, fileId);
}

/** Deletes a file and all its versions; returns the versions that were there. */
export function deleteFileRows(db: Db, fileId: string): VersionRow[] {
  const versions = versionsOf(db, fileId);
  stmt(db, 'DELETE FROM file_versions WHERE file_id = ?').run(fileId);
  stmt(db, 'DELETE FROM files WHERE id = ?').run(fileId);
  return versions;
}

/** Whether any ready version still uses these bytes, or a deleted file that can still be restored. */
export function blobReferenced(db: Db, sha256: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM file_versions WHERE sha256 = ? AND status = 'ready' LIMIT 1").get(sha256) !== undefined ||
    stmt(db, 'SELECT 1 FROM deleted_file_blobs WHERE sha256 = ? LIMIT 1').get(sha256) !== undefined
  );
}

export function pendingUploadExists(db: Db, fileId: string, version: number): boolean {
  return (
    stmt(db, "SELECT 1 FROM file_versions WHERE file_id = ? AND version = ? AND status = 'quarantined'").get(fileId, version) !== undefined
  );
}
