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
