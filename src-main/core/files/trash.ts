import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError } from '../errors/app-error.js';
import { humanRole, touchRoom } from '../rooms/store.js';
import type { BlobStore } from './blobs.js';
import { deletedFileActions, deletePermission, restorePermission, type FileStanding } from './rules.js';
import { fileByPath, insertVersion, versionsOf, type FileActor, type FileRow, type VersionRow } from './store.js';

/**
 * Soft delete (docs/security.md, item 7): a deleted file leaves the room at once, but its rows
 * and bytes are kept for the retention period so a mistaken or hostile delete can be undone.
 * Only the author's owner or a room admin may delete or restore; a purge removes it for good.
 */

/** How long a deleted file can be restored: 7 days, `AGENT_ROOMS_FILE_RETENTION_MS` to change it. */
export function fileRetentionMs(): number {
  const v = Number(process.env.AGENT_ROOMS_FILE_RETENTION_MS);
  return Number.isFinite(v) && v >= 0 ? v : 7 * 24 * 3600 * 1000;
}

interface DeletedRow {
  file_id: string;
  room_id: string;
  path: string;
  file_row: string;
  versions: string;
  deleted_by_kind: 'agent' | 'human';
  deleted_by_plate: string | null;
  deleted_by_owner_id: string;
  deleted_at: number;
  purge_at: number;
}

/**
 * May this actor delete (or restore) a file with these versions? A room admin's side (the
 * admin human or its agents), or the author's owner: every version was written by that owner.
 */
export function mayDeleteFile(db: Db, roomId: string, actor: FileActor, versions: VersionRow[]): boolean {
  return deletePermission(standingOf(db, roomId, actor), versions).ok;
}

/** The room role of the actor's owner (an agent acts with its owner's role), for files/rules.ts. */
export function standingOf(db: Db, roomId: string, actor: { ownerId: string }): FileStanding {
  return { ownerId: actor.ownerId, role: humanRole(db, roomId, actor.ownerId) };
}

export function requireDeleteRight(db: Db, roomId: string, actor: FileActor, versions: VersionRow[]): void {
  if (!mayDeleteFile(db, roomId, actor, versions)) {
    throw new AppError('FORBIDDEN', "only the file's author's owner or a room admin may delete or restore this file", {
      reason: 'not_file_owner',
      roomId,
    });
  }
}

/**
 * Moves a file and its ready versions to the trash (inside the caller's transaction). Versions
 * still awaiting their bytes are dropped: an unfinished upload is nothing to restore.
 * Returns the moment it can no longer be restored.
 */
export function trashFile(db: Db, f: FileRow, actor: FileActor, now: number): { purgeAt: number; versions: VersionRow[] } {
  const versions = versionsOf(db, f.id);
  const ready = versions.filter((v) => v.status === 'ready');
  const purgeAt = now + fileRetentionMs();
  if (ready.length > 0) {
    stmt(
      db,
      `INSERT INTO deleted_files (file_id, room_id, path, file_row, versions, deleted_by_kind, deleted_by_plate, deleted_by_owner_id, deleted_at, purge_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      f.id,
      f.room_id,
      f.path,
      JSON.stringify(f),
      JSON.stringify(ready),
      actor.kind,
      actor.kind === 'agent' ? actor.plate : null,
      actor.ownerId,
      now,
      purgeAt,
    );
    for (const sha of new Set(ready.map((v) => v.sha256))) {
      stmt(db, 'INSERT OR IGNORE INTO deleted_file_blobs (file_id, sha256) VALUES (?, ?)').run(f.id, sha);
    }
  }
  stmt(db, 'DELETE FROM file_versions WHERE file_id = ?').run(f.id);
  stmt(db, 'DELETE FROM files WHERE id = ?').run(f.id);
  return { purgeAt, versions };
}

/** Do deleted files still keep these bytes? */
export function blobInTrash(db: Db, sha256: string): boolean {
  return stmt(db, 'SELECT 1 FROM deleted_file_blobs WHERE sha256 = ? LIMIT 1').get(sha256) !== undefined;
}

function deletedDto(r: DeletedRow) {
  const versions = JSON.parse(r.versions) as VersionRow[];
  const cur = versions[versions.length - 1];
  return {
    file_id: r.file_id,
    room: r.room_id,
    path: r.path,
    versions: versions.length,
    size_bytes: cur?.size_bytes ?? 0,
    content_type: cur?.content_type ?? null,
    deleted_by: r.deleted_by_kind === 'agent' ? { kind: 'agent' as const, plate: r.deleted_by_plate } : { kind: 'human' as const, owner_id: r.deleted_by_owner_id },
    deleted_at: new Date(r.deleted_at).toISOString(),
    restorable_until: new Date(r.purge_at).toISOString(),
  };
}

/** The room's deleted files still in their retention period, newest first, each with whether this owner may restore it now (files/rules.ts). */
export function listDeletedFilesFor(db: Db, roomId: string, ownerId: string) {
  const who = standingOf(db, roomId, { ownerId });
  return (stmt(db, 'SELECT * FROM deleted_files WHERE room_id = ? ORDER BY deleted_at DESC').all(roomId) as DeletedRow[]).map((r) => ({
    ...deletedDto(r),
    ...deletedFileActions({ deletedByOwner: r.deleted_by_owner_id, versions: JSON.parse(r.versions) as VersionRow[], pathTaken: !!fileByPath(db, roomId, r.path) }, who),
  }));
}

/** Brings a deleted file back with its versions, under its old id and path; CONFLICT when the path was reused meanwhile. */
export function restoreFile(core: Core, actor: FileActor, roomId: string, fileId: string) {
  const { db } = core;
  const out = immediate(db, () => {
    const r = stmt(db, 'SELECT * FROM deleted_files WHERE file_id = ? AND room_id = ?').get(fileId, roomId) as DeletedRow | undefined;
    if (!r) throw new AppError('NOT_FOUND', 'no deleted file with this id in the room (it may have been purged)', { roomId });
    const versions = JSON.parse(r.versions) as VersionRow[];
    // Refused: the same FORBIDDEN as a delete by someone who may not.
    if (!restorePermission(standingOf(db, roomId, actor), { deletedByOwner: r.deleted_by_owner_id, versions }).ok) requireDeleteRight(db, roomId, actor, versions);
    if (fileByPath(db, roomId, r.path)) {
      throw new AppError('CONFLICT', 'a file with this path exists again; rename or delete it, then restore', { reason: 'path_taken', roomId });
    }
    const f = JSON.parse(r.file_row) as FileRow;
    stmt(db, 'INSERT INTO files (id, room_id, path, next_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      f.id,
      f.room_id,
      f.path,
      f.next_version,
      f.created_at,
      Date.now(),
    );
    for (const v of versions) insertVersion(db, v);
    // insertVersion leaves the received columns empty, which is what a ready version holds.
    stmt(db, 'DELETE FROM deleted_files WHERE file_id = ?').run(fileId);
    touchRoom(db, roomId, ['files']);
    return { restored: true, file_id: f.id, path: f.path, versions_restored: versions.length };
  });
  core.bus.emit({ type: 'files.changed', room: roomId });
  return out;
}

/** Purges deleted files past their retention: rows first, then bytes nothing else uses. Returns how many. */
export function purgeDeletedFiles(db: Db, blobs: BlobStore, referenced: (sha: string) => boolean, now = Date.now()): number {
  const due = immediate(db, () => {
    const rows = stmt(db, 'SELECT file_id FROM deleted_files WHERE purge_at <= ?').all(now) as Array<{ file_id: string }>;
    const shas = new Set<string>();
    for (const r of rows) {
      for (const b of stmt(db, 'SELECT sha256 FROM deleted_file_blobs WHERE file_id = ?').all(r.file_id) as Array<{ sha256: string }>) shas.add(b.sha256);
      stmt(db, 'DELETE FROM deleted_files WHERE file_id = ?').run(r.file_id);
    }
    return { n: rows.length, shas };
  });
  // Same tick as the commit: no write can re-reference these bytes in between.
  for (const sha of due.shas) if (!referenced(sha)) blobs.removeSync(sha);
  return due.n;
}
