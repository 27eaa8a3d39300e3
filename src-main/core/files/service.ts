import { closeSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError, invalid } from '../errors/app-error.js';
import { withIdempotency } from '../idempotency/store.js';
import { getRoom, requireAgentRoom, requireHumanRoom, touchRoom } from '../rooms/store.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { indexableText, indexFileText, SEARCH_FILE_TEXT_MAX } from '../search/service.js';
import { newId } from '../util/ids.js';
import type { BlobStore } from './blobs.js';
import { baseName, normaliseContentType, normaliseFilePath, normalisePrefix } from './paths.js';
import { presignedUrl } from './presign.js';
import { purgeDeletedFiles, requireDeleteRight, standingOf, trashFile } from './trash.js';
import { fileActions } from './rules.js';
import {
  allocateVersion,
  blobReferenced,
  currentVersion,
  fileById,
  fileByPath,
  filesCount,
  filesPage,
  getVersion,
  insertFile,
  insertVersion,
  markReady,
  pendingUploadExists,
  setQuarantineReason,
  versionsOf,
  type FileActor,
  type FileRow,
  type VersionRow,
} from './store.js';
import { repeat, type StopStep } from '../util/repeat.js';
import type { z } from 'zod';
import { FILES_LIMIT_MAX, type fileEntry } from '../../../shared/schemas/files.js';
import type { AnswerOf } from '../../../shared/contracts/contract.js';
import type { contracts } from '../../../shared/contracts/index.js';

/** write_file and read_file carry at most this many decoded bytes (docs/contract.md "Limits"). */
export const INLINE_LIMIT = 256 * 1024;
/** A presigned file is at most 2 GiB. */
export const PRESIGNED_LIMIT = 2 * 1024 * 1024 * 1024;

declare module '../core.js' {
  interface CoreServices {
    /** The content-addressed blobs under `<home>/blobs`. */
    blobs: BlobStore;
  }
}

export function blobsOf(core: Core): BlobStore {
  return core.services.blobs;
}

/** A file as the tools show it: one version of one path (shared/schemas/files.ts). */
export type FileEntry = z.output<typeof fileEntry>;

export function entryOf(f: FileRow, v: VersionRow): FileEntry {
  return {
    path: f.path,
    file_id: f.id,
    version: v.version,
    filename: v.filename,
    content_type: v.content_type,
    size_bytes: v.size_bytes,
    sha256: v.sha256,
    kind: v.kind,
    status: v.status,
    read_with: v.kind === 'inline' ? 'read_file' : 'fetch_file',
    updated_at: new Date(v.ready_at ?? v.created_at).toISOString(),
  };
}

function requireMember(db: Db, roomId: string, actor: FileActor): void {
  if (actor.kind === 'agent') requireAgentRoom(db, roomId, actor.plate);
  else requireHumanRoom(db, roomId, actor.ownerId);
}

function isUploader(v: VersionRow, actor: FileActor): boolean {
  return actor.kind === 'agent' ? v.uploader_kind === 'agent' && v.uploader_plate === actor.plate : true;
}

/**
 * Whether the actor may see the file at all: a file with a ready version is visible to every
 * member; one that is only quarantined, to its uploader (and to the room's humans, who oversee it).
 */
function visible(db: Db, f: FileRow, actor: FileActor): boolean {
  if (currentVersion(db, f.id)) return true;
  return versionsOf(db, f.id).some((v) => isUploader(v, actor));
}

const fileNotFound = () => new AppError('NOT_FOUND', 'file not found in this room; call list_files');

/** A file of the room by path or id, if the actor may see it. */
function findFile(db: Db, roomId: string, actor: FileActor, ref: { path?: string; fileId?: string }): FileRow {
  if (ref.path === undefined && ref.fileId === undefined) throw invalid('give path or file_id');
  let f: FileRow | undefined;
  if (ref.fileId !== undefined) {
    f = fileById(db, ref.fileId);
    if (f && ref.path !== undefined && f.path !== normaliseFilePath(ref.path)) throw invalid('path and file_id name different files');
  } else {
    f = fileByPath(db, roomId, normaliseFilePath(ref.path!));
  }
  if (!f || f.room_id !== roomId || !visible(db, f, actor)) throw fileNotFound();
  return f;
}

/** A file by id alone (complete_file_upload, fetch_file): its room decides membership. */
function fileForActor(db: Db, actor: FileActor, fileId: string, roomId?: string): FileRow {
  const f = fileById(db, fileId);
  if (!f || (roomId !== undefined && f.room_id !== roomId)) throw fileNotFound();
  requireMember(db, f.room_id, actor);
  if (!visible(db, f, actor)) throw fileNotFound();
  return f;
}

function uploaderColumns(actor: FileActor) {
  return {
    uploader_kind: actor.kind,
    uploader_plate: actor.kind === 'agent' ? actor.plate : null,
    uploader_owner_id: actor.ownerId,
  } as const;
}

function fileForWrite(db: Db, roomId: string, path: string, now: number): FileRow {
  return fileByPath(db, roomId, path) ?? insertFile(db, { id: newId('file'), roomId, path, now });
}

function announce(core: Core, roomId: string) {
  core.bus.emit({ type: 'files.changed', room: roomId });
}

// ---- inline ---------------------------------------------------------------------------

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** The bytes of write_file's content; PAYLOAD_TOO_LARGE over the inline limit. */
export function decodeContent(content: string, encoding: 'utf-8' | 'base64'): Buffer {
  let bytes: Buffer;
  if (encoding === 'base64') {
    const compact = content.replace(/\s+/g, '');
    if (!BASE64.test(compact)) throw invalid('content is not valid base64', 'bad_base64');
    bytes = Buffer.from(compact, 'base64');
  } else {
    bytes = Buffer.from(content, 'utf8');
  }
  if (bytes.length > INLINE_LIMIT) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `inline files are at most ${INLINE_LIMIT / 1024} KiB decoded; for larger or binary files use share_file (presigned upload), then complete_file_upload`,
      { reason: 'use_share_file' },
    );
  }
  return bytes;
}

export interface WriteInput {
  roomId: string;
  path: string;
  content: string;
  encoding: 'utf-8' | 'base64';
  contentType?: string;
  idempotencyKey?: string;
}

/** write_file: a new version of the path (a new file the first time), stored before it is recorded. */
export function writeInline(core: Core, actor: FileActor, input: WriteInput): FileEntry & { replayed?: boolean } {
  const { db } = core;
  requireMember(db, input.roomId, actor);
  const path = normaliseFilePath(input.path);
  const bytes = decodeContent(input.content, input.encoding);
  const contentType = normaliseContentType(
    input.contentType,
    input.encoding === 'utf-8' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
  );
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const blobs = blobsOf(core);
  // The key applies to one (room, path): the same key on another path is another write.
  const scope = `write_file:${input.roomId}:${path}`;
  const result = immediate(db, () =>
    withIdempotency(db, scope, input.idempotencyKey, { sha256, content_type: contentType }, () => {
      const now = Date.now();
      // Bytes first (fsynced, renamed into place), then the row: a crash leaves at worst an unreferenced blob.
      blobs.writeSync(sha256, bytes);
      const f = fileForWrite(db, input.roomId, path, now);
      const version = allocateVersion(db, f.id, now);
      insertVersion(db, {
        file_id: f.id,
        version,
        kind: 'inline',
        status: 'ready',
        quarantine_reason: null,
        filename: baseName(path),
        content_type: contentType,
        size_bytes: bytes.length,
        sha256,
        ...uploaderColumns(actor),
        created_at: now,
        ready_at: now,
      });
      // The search index holds the newest text version's contents (same transaction as the row).
      indexFileText(db, f.id, indexableText(bytes));
      touchRoom(db, input.roomId, ['files']);
      return entryOf(fileById(db, f.id)!, getVersion(db, f.id, version)!);
    }),
  );
  if (!result.replayed) announce(core, input.roomId);
  return result;
}

export interface ByteRange {
  start: number;
  end?: number;
}

/** read_file: one ready version (the current one by default), whole or a byte range, inline. */
export function readInline(
  core: Core,
  actor: FileActor,
  input: { roomId: string; path?: string; fileId?: string; version?: number; range?: ByteRange },
) {
  const { db } = core;
  requireMember(db, input.roomId, actor);
  const f = findFile(db, input.roomId, actor, input);
  const v = readableVersion(db, f, input.version);
  const size = v.size_bytes;
  let start = 0;
  let end = size - 1;
  if (input.range) {
    start = input.range.start;
    end = Math.min(input.range.end ?? size - 1, size - 1);
    if (input.range.end !== undefined && input.range.end < start) throw invalid('range end is before its start', 'bad_range');
    if (start > 0 && start >= size) throw invalid('range starts past the end of the file', 'range_not_satisfiable');
  }
  const length = Math.max(0, end - start + 1);
  if (length > INLINE_LIMIT) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `read_file returns at most ${INLINE_LIMIT / 1024} KiB; ask for a smaller range, or use fetch_file for a download URL`,
      { reason: 'use_fetch_file' },
    );
  }
  const buf = Buffer.alloc(length);
  if (length > 0) {
    const fd = openSync(blobsOf(core).pathOf(v.sha256), 'r');
    try {
      let off = 0;
      while (off < length) {
        const n = readSync(fd, buf, off, length - off, start + off);
        if (n === 0) break;
        off += n;
      }
    } finally {
      closeSync(fd);
    }
  }
  let encoding: 'utf-8' | 'base64' = 'base64';
  let content: string;
  try {
    content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
    encoding = 'utf-8';
  } catch {
    content = buf.toString('base64');
  }
  return {
    ...entryOf(f, v),
    encoding,
    content,
    range: { start, end: start + length - 1 },
    partial: length !== size,
  };
}

function readableVersion(db: Db, f: FileRow, version: number | undefined): VersionRow {
  const v = version === undefined ? currentVersion(db, f.id) : getVersion(db, f.id, version);
  if (!v) {
    if (version !== undefined) throw new AppError('NOT_FOUND', 'no such version of this file; list_files shows the current one');
    throw new AppError('CONFLICT', 'this file has no released version yet: it is quarantined until complete_file_upload succeeds', {
      reason: 'quarantined',
    });
  }
  if (v.status !== 'ready') {
    throw new AppError('CONFLICT', 'this version is quarantined: its bytes are not served until complete_file_upload succeeds', {
      reason: 'quarantined',
    });
  }
  return v;
}

/** A page of list_files / GET …/files: `next_cursor` continues after the last path shown. */
export interface PageOfFiles<T> {
  files: T[];
  next_cursor: string | null;
  total: number;
}

export const FILES_LIMIT_HTTP = 100;
/** list_files' default page: 30 entries stay under 32 KB as sent (structured content and its text copy). */
export const FILES_LIMIT_MCP = 30;

const isPathKey = (k: unknown[]): k is [string] => k.length === 1 && typeof k[0] === 'string';

/**
 * Counts are the one part of a page that grows with the room (50,000 files: a full index
 * walk per read); they are kept per room, query and caller until the room's context_version
 * moves, which every file write bumps.
 */
const totals = new WeakMap<Db, Map<string, { version: number; n: number }>>();
function cachedCount(db: Db, key: string, version: number, count: () => number): number {
  let m = totals.get(db);
  if (!m) totals.set(db, (m = new Map()));
  const hit = m.get(key);
  if (hit && hit.version === version) return hit.n;
  const n = count();
  if (m.size >= 1000) m.clear();
  m.set(key, { version, n });
  return n;
}

/**
 * The versions of every file of a page, oldest first, in one statement: two per-file queries
 * (current version, all versions) made a 500-file page cost 1,000 statements, the larger part
 * of its time.
 */
function versionsOfPage(db: Db, ids: string[]): Map<string, VersionRow[]> {
  const out = new Map<string, VersionRow[]>();
  if (!ids.length) return out;
  const rows = stmt(db, 'SELECT * FROM file_versions WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, version').all(
    JSON.stringify(ids),
  ) as VersionRow[];
  for (const v of rows) (out.get(v.file_id) ?? out.set(v.file_id, []).get(v.file_id)!).push(v);
  return out;
}

/** The current version among a file's versions (oldest first): the newest one that is ready. */
function currentOf(versions: readonly VersionRow[]): VersionRow | undefined {
  for (let i = versions.length - 1; i >= 0; i--) if (versions[i]!.status === 'ready') return versions[i];
  return undefined;
}

function pageOf<T>(
  db: Db,
  roomId: string,
  q: { prefix?: string; cursor?: string; limit: number; plate?: string },
  shape: (f: FileRow, versions: VersionRow[]) => T,
): PageOfFiles<T> {
  const prefix = normalisePrefix(q.prefix);
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isPathKey)[0];
  const limit = Math.max(1, Math.min(FILES_LIMIT_MAX, q.limit));
  const rows = filesPage(db, { roomId, prefix, after, limit: limit + 1, plate: q.plate });
  const page = rows.slice(0, limit);
  const version = getRoom(db, roomId)!.context_version;
  const total = cachedCount(db, `${roomId}\u0000${prefix}\u0000${q.plate ?? ''}`, version, () => filesCount(db, { roomId, prefix, plate: q.plate }));
  const versions = versionsOfPage(db, page.map((f) => f.id));
  return {
    files: page.map((f) => shape(f, versions.get(f.id) ?? [])),
    next_cursor: rows.length > limit ? encodeCursor([page[page.length - 1]!.path]) : null,
    total,
  };
}

/** The entry an actor sees of one file: its current version, or its own newest quarantined upload. */
function entryFor(f: FileRow, versions: readonly VersionRow[], actor: FileActor): FileEntry | undefined {
  const cur = currentOf(versions);
  if (cur) return entryOf(f, cur);
  const mine = versions.filter((v) => isUploader(v, actor));
  return mine.length ? entryOf(f, mine[mine.length - 1]!) : undefined;
}

/** list_files: one page of the readable files of the room (both storage paths), current version, by path. */
export function listFilesPage(
  core: Core,
  actor: FileActor,
  roomId: string,
  q: { prefix?: string; cursor?: string; limit?: number },
): PageOfFiles<FileEntry> {
  const { db } = core;
  requireMember(db, roomId, actor);
  const plate = actor.kind === 'agent' ? actor.plate : undefined;
  const page = pageOf(db, roomId, { ...q, limit: q.limit ?? FILES_LIMIT_MCP, plate }, (f, versions) => entryFor(f, versions, actor));
  return { ...page, files: page.files.filter((e): e is FileEntry => e !== undefined) };
}

/** The human view: one page of files with all their versions and their quarantine state (GET /v1/rooms/:id/files's answer). */
export function listFilesForHumans(core: Core, ownerId: string, roomId: string, q: { prefix?: string; cursor?: string; limit?: number } = {}) {
  const { db } = core;
  requireHumanRoom(db, roomId, ownerId);
  const who = standingOf(db, roomId, { ownerId });
  return pageOf(db, roomId, { ...q, limit: q.limit ?? FILES_LIMIT_HTTP }, (f, versions) => {
    const cur = currentOf(versions) ?? versions[versions.length - 1]!;
    return {
      ...entryOf(f, cur),
      ...fileActions(currentOf(versions), versions, who),
      versions: versions.map((v) => ({
        version: v.version,
        kind: v.kind,
        status: v.status,
        quarantine_reason: v.quarantine_reason,
        filename: v.filename,
        content_type: v.content_type,
        size_bytes: v.size_bytes,
        sha256: v.sha256,
        uploaded_by: v.uploader_kind === 'agent' ? { kind: 'agent' as const, plate: v.uploader_plate } : { kind: 'human' as const, owner_id: v.uploader_owner_id },
        created_at: new Date(v.created_at).toISOString(),
        ready_at: v.ready_at === null ? null : new Date(v.ready_at).toISOString(),
      })),
    };
  }) satisfies AnswerOf<typeof contracts.files.list>;
}

/**
 * delete_file: the file and all its versions leave the room, by the author's owner or a room
 * admin only. The delete is soft (files/trash.ts): restorable until `restorable_until`, then
 * purged; bytes no other version or deleted file uses are dropped only then.
 */
export function deleteFile(core: Core, actor: FileActor, input: { roomId: string; path?: string; fileId?: string }) {
  const { db } = core;
  requireMember(db, input.roomId, actor);
  const blobs = blobsOf(core);
  const removed = immediate(db, () => {
    const f = findFile(db, input.roomId, actor, input);
    requireDeleteRight(db, input.roomId, actor, versionsOf(db, f.id));
    const { versions, purgeAt } = trashFile(db, f, actor, Date.now());
    touchRoom(db, input.roomId, ['files']);
    return { f, versions, purgeAt };
  });
  // Same tick as the commit (no await in between): no write can re-reference these bytes meanwhile.
  for (const sha of new Set(removed.versions.filter((v) => v.status === 'ready').map((v) => v.sha256))) {
    if (!blobReferenced(db, sha)) blobs.removeSync(sha);
  }
  for (const v of removed.versions) if (v.status === 'quarantined') rmSync(blobs.uploadPath(v.file_id, v.version), { force: true });
  announce(core, input.roomId);
  return {
    deleted: true,
    file_id: removed.f.id,
    path: removed.f.path,
    versions_deleted: removed.versions.length,
    restorable_until: new Date(removed.purgeAt).toISOString(),
  };
}

// ---- presigned ------------------------------------------------------------------------

export interface ShareInput {
  roomId: string;
  filename: string;
  contentType?: string;
  sizeBytes: number;
  sha256: string;
  idempotencyKey?: string;
}

/** share_file: a quarantined version awaiting its bytes, and the signed URL to PUT them to. */
export function shareFile(core: Core, actor: FileActor, input: ShareInput) {
  const { db } = core;
  requireMember(db, input.roomId, actor);
  const path = normaliseFilePath(input.filename);
  const contentType = normaliseContentType(input.contentType, 'application/octet-stream');
  if (!Number.isSafeInteger(input.sizeBytes) || input.sizeBytes < 0) throw invalid('size_bytes must be a whole number of bytes');
  if (input.sizeBytes > PRESIGNED_LIMIT) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'presigned files are at most 2 GiB', { reason: 'file_too_large' });
  }
  const sha256 = input.sha256.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw invalid('sha256 must be 64 hexadecimal characters', 'bad_sha256');
  const who = actor.kind === 'agent' ? actor.plate : actor.ownerId;
  const args = { path, content_type: contentType, size_bytes: input.sizeBytes, sha256 };
  const result = immediate(db, () =>
    withIdempotency(db, `share_file:${input.roomId}:${who}`, input.idempotencyKey, args, () => {
      const now = Date.now();
      const f = fileForWrite(db, input.roomId, path, now);
      const version = allocateVersion(db, f.id, now);
      insertVersion(db, {
        file_id: f.id,
        version,
        kind: 'presigned',
        status: 'quarantined',
        quarantine_reason: 'awaiting_upload',
        filename: baseName(path),
        content_type: contentType,
        size_bytes: input.sizeBytes,
        sha256,
        ...uploaderColumns(actor),
        created_at: now,
        ready_at: null,
      });
      const { url, expires_at } = presignedUrl(core, 'upload', f.id, version, now);
      return {
        ...entryOf(f, getVersion(db, f.id, version)!),
        upload_url: url,
        upload_method: 'PUT',
        expires_at,
        next: 'PUT the exact bytes to upload_url, then call complete_file_upload with this file_id',
      };
    }),
  );
  if (!result.replayed) announce(core, input.roomId);
  return result;
}

/** A presigned version, whatever its state (the raw upload and download handlers look it up). */
export function presignedVersion(core: Core, fileId: string, version: number): VersionRow | undefined {
  const v = getVersion(core.db, fileId, version);
  return v && v.kind === 'presigned' ? v : undefined;
}

function pickUploadVersion(db: Db, f: FileRow, actor: FileActor, version?: number): VersionRow {
  const all = versionsOf(db, f.id).filter((v) => v.kind === 'presigned' && isUploader(v, actor));
  if (version !== undefined) {
    const v = all.find((x) => x.version === version);
    if (!v) throw new AppError('NOT_FOUND', 'no presigned upload of yours with this version');
    return v;
  }
  const pending = all.filter((v) => v.status === 'quarantined');
  const v = pending[pending.length - 1] ?? all[all.length - 1];
  if (!v) throw new AppError('NOT_FOUND', 'no presigned upload of yours for this file; call share_file first');
  return v;
}

/**
 * complete_file_upload: releases the version if the received bytes match the declared size and
 * sha256; otherwise it stays quarantined and the error says why. The file_id (with the
 * version) is the idempotency key: a repeat returns the first result.
 */
export function completeUpload(core: Core, actor: FileActor, input: { fileId: string; version?: number; roomId?: string }) {
  const { db } = core;
  const blobs = blobsOf(core);
  const outcome = immediate(db, () => {
    const f = fileForActor(db, actor, input.fileId, input.roomId);
    const v = pickUploadVersion(db, f, actor, input.version);
    const act = () => {
      const now = Date.now();
      blobs.adoptSync(blobs.uploadPath(f.id, v.version), v.sha256);
      markReady(db, f.id, v.version, now);
      indexFileText(db, f.id, v.size_bytes <= SEARCH_FILE_TEXT_MAX ? indexableText(readFileSync(blobs.pathOf(v.sha256))) : undefined);
      touchRoom(db, f.room_id, ['files']);
      return { ...entryOf(fileById(db, f.id)!, getVersion(db, f.id, v.version)!), room: f.room_id };
    };
    const scope = `complete_file_upload:${f.id}`;
    const key = `v${v.version}`;
    const args = { file_id: f.id, version: v.version };
    if (v.status === 'ready') return { ok: withIdempotency(db, scope, key, args, () => ({ ...entryOf(f, v), room: f.room_id })) };
    if (v.received_sha256 === null) return { ok: undefined, fail: 'upload_missing' as const, v };
    let reason: 'size_mismatch' | 'sha256_mismatch' | undefined;
    if (v.received_bytes !== v.size_bytes) reason = 'size_mismatch';
    else if (v.received_sha256 !== v.sha256) reason = 'sha256_mismatch';
    if (reason) {
      setQuarantineReason(db, f.id, v.version, reason, true);
      return { ok: undefined, fail: reason, v };
    }
    return { ok: withIdempotency(db, scope, key, args, act) };
  });
  if (outcome.ok) {
    if (!outcome.ok.replayed) announce(core, outcome.ok.room);
    return outcome.ok;
  }
  if (outcome.fail !== 'upload_missing') rmSync(blobs.uploadPath(outcome.v.file_id, outcome.v.version), { force: true });
  announce(core, fileById(db, outcome.v.file_id)?.room_id ?? '');
  const why = {
    upload_missing: 'no bytes have arrived yet: PUT them to the upload_url first',
    size_mismatch: 'the uploaded bytes do not have the declared size_bytes',
    sha256_mismatch: 'the uploaded bytes do not have the declared sha256',
  }[outcome.fail];
  const then =
    outcome.fail === 'upload_missing'
      ? 'then call complete_file_upload again'
      : 'the file stays quarantined: PUT the right bytes again while the upload_url is valid, or call share_file anew';
  throw new AppError('CONFLICT', `${why}; ${then}`, { reason: outcome.fail, roomId: fileById(db, outcome.v.file_id)?.room_id });
}

/** fetch_file: a signed download URL for a ready version (the current one by default). */
export function fetchFile(core: Core, actor: FileActor, input: { fileId: string; version?: number; roomId?: string }) {
  const { db } = core;
  const f = fileForActor(db, actor, input.fileId, input.roomId);
  const v = readableVersion(db, f, input.version);
  const { url, expires_at } = presignedUrl(core, 'download', f.id, v.version);
  return { ...entryOf(f, v), download_url: url, expires_at };
}

/** Start-up housekeeping of blobs/ (see BlobStore.sweep): in small batches, never blocking requests for long. */
export async function sweepBlobs(core: Core): Promise<void> {
  const { db } = core;
  try {
    const removed = await blobsOf(core).sweep(
      (sha) => blobReferenced(db, sha),
      (name) => {
        const m = /^(file_[0-9a-z]+)\.v([0-9]+)\.upload$/.exec(name);
        return !!m && pendingUploadExists(db, m[1]!, Number(m[2]));
      },
      60 * 60 * 1000,
      () => db.open,
    );
    if (removed) core.config.log(`files: removed ${removed} stale temp or unreferenced blob files`);
  } catch (err) {
    // housekeeping only (e.g. the core stopped meanwhile): the next start tries again
    if (db.open) core.config.log(`files: blob sweep skipped: ${(err as Error).message}`);
  }
}

/** Purges deleted files past their retention (start-up and hourly; docs/files.md). */
export function purgeTrash(core: Core, now = Date.now()): number {
  const { db } = core;
  try {
    const n = purgeDeletedFiles(db, blobsOf(core), (sha) => blobReferenced(db, sha), now);
    if (n) core.config.log(`files: purged ${n} deleted files past their retention`);
    return n;
  } catch (err) {
    if (db.open) core.config.log(`files: purge of deleted files skipped: ${(err as Error).message}`);
    return 0;
  }
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** The CAPABILITY_STARTERS entry: purge now and then every hour. */
export function startTrashPurger(core: Core): StopStep {
  const first = setImmediate(() => purgeTrash(core));
  const stop = repeat({ name: 'trash purge', owner: core, everyMs: PURGE_EVERY_MS, runNow: false, log: core.config.log }, () => purgeTrash(core));
  return () => {
    clearImmediate(first);
    stop();
  };
}
