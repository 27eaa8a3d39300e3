import { DELETED_FILE_ACTIONS, FILE_ACTIONS, type DeletedFileAction, type FileAction } from '../../../shared/api-types.js';
import type { RoomRole } from '../rooms/store.js';
import type { VersionRow } from './store.js';

/**
 * What may be done with a room's file (docs/files.md "Deleting and restoring"): download its
 * current version, delete it, restore it once deleted. The files service and the trash ask
 * these functions before they act; the /v1 file lists carry their answers as
 * `allowed_actions` and `denied_actions`.
 */

export { DELETED_FILE_ACTIONS, FILE_ACTIONS, type DeletedFileAction, type FileAction };

/** Whoever acts: a human, or an agent acting for its owner (the owner's room role counts). */
export interface FileStanding {
  ownerId: string;
  role: RoomRole | undefined;
}

export type Permission = { ok: true } | { ok: false; reason: string };
const yes: Permission = { ok: true };

/** Delete (and restore): a room admin's side, or the author's owner, who wrote every version. */
export function deletePermission(who: FileStanding, versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>): Permission {
  if (who.role === 'admin') return yes;
  if (versions.length > 0 && versions.every((v) => v.uploader_owner_id === who.ownerId)) return yes;
  return { ok: false, reason: 'Only the file’s author’s owner or a room admin may delete or restore it.' };
}

/** Restore: whoever deleted it, or whoever may delete it. */
export function restorePermission(who: FileStanding, deleted: { deletedByOwner: string; versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>> }): Permission {
  return deleted.deletedByOwner === who.ownerId ? yes : deletePermission(who, deleted.versions);
}

export interface FileActions {
  allowed_actions: FileAction[];
  denied_actions: Partial<Record<FileAction, string>>;
}

/** A live file: download when its current version is ready (quarantined bytes are not served), delete by the rule above. */
export function fileActions(current: Pick<VersionRow, 'status'> | undefined, versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>, who: FileStanding): FileActions {
  const allowed: FileAction[] = [];
  const denied: Partial<Record<FileAction, string>> = {};
  if (current?.status === 'ready') allowed.push('download');
  else denied.download = 'A quarantined file cannot be downloaded.';
  const del = deletePermission(who, versions);
  if (del.ok) allowed.push('delete');
  else denied.delete = del.reason;
  return { allowed_actions: allowed, denied_actions: denied };
}

export interface DeletedFileActions {
  allowed_actions: DeletedFileAction[];
  denied_actions: Partial<Record<DeletedFileAction, string>>;
}

/** A deleted file: restore, unless the caller may not or its path was taken again meanwhile. */
export function deletedFileActions(
  deleted: { deletedByOwner: string; versions: ReadonlyArray<Pick<VersionRow, 'uploader_owner_id'>>; pathTaken: boolean },
  who: FileStanding,
): DeletedFileActions {
  const p = restorePermission(who, deleted);
  if (!p.ok) return { allowed_actions: [], denied_actions: { restore: p.reason } };
  if (deleted.pathTaken) return { allowed_actions: [], denied_actions: { restore: 'A file with this path exists again: rename or delete it, then restore.' } };
  return { allowed_actions: ['restore'], denied_actions: {} };
}
