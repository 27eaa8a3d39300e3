import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream, createWriteStream, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Core } from '../core.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { sendApiError, sendJson } from '../http/respond.js';
import { verifyPresigned } from './presign.js';
import { blobsOf } from './service.js';
import { fileById, getVersion, pendingUploadExists, setReceived } from './store.js';

/** A transfer that moves no byte for this long is dropped, so a stalled client cannot hold it forever. */
export const TRANSFER_IDLE_MS = 60_000;

const FILE_URL = /^\/files\/(upload|download)\/([^/]+)$/;

/**
 * The presigned URLs (a raw handler: outside /v1, authorised by the URL's HMAC signature alone).
 * PUT /files/upload/<file_id>?v&exp&sig streams the bytes to disk; GET/HEAD
 * /files/download/<file_id>?v&exp&sig streams them back, with Range support.
 */
export async function handleFileUrl(core: Core, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const m = FILE_URL.exec(url.pathname);
  if (!m) return false;
  const op = m[1] as 'upload' | 'download';
  try {
    let fileId: string;
    try {
      fileId = decodeURIComponent(m[2]!);
    } catch {
      throw new AppError('NOT_FOUND', 'no such file URL');
    }
    req.setTimeout(TRANSFER_IDLE_MS, () => req.destroy(new AppError('UNAVAILABLE', 'transfer idle for too long')));
    if (op === 'upload') {
      if (req.method !== 'PUT') throw new AppError('INVALID_ARGUMENT', 'upload URLs take PUT', { httpStatus: 405 });
      await receiveUpload(core, req, res, url, fileId);
    } else {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new AppError('INVALID_ARGUMENT', 'download URLs take GET', { httpStatus: 405 });
      await serveDownload(core, req, res, url, fileId);
    }
  } catch (err) {
    const e = toAppError(err);
    if (e.code === 'INTERNAL') core.config.log(`internal error in ${req.method} /files/${op}: ${(err as Error)?.stack ?? String(err)}`);
    if (!res.headersSent) {
      // The client may still be sending a body we refuse to read: close rather than drain it.
      res.setHeader('connection', 'close');
      sendApiError(core, res, e, { route: `${req.method} /files/${op}` });
    } else {
      res.destroy();
    }
  }
  return true;
}

async function receiveUpload(core: Core, req: IncomingMessage, res: ServerResponse, url: URL, fileId: string) {
  const { db } = core;
  const version = verifyPresigned(core, 'upload', fileId, url);
  const v = getVersion(db, fileId, version);
  if (!v || v.kind !== 'presigned') throw new AppError('NOT_FOUND', 'this upload no longer exists (the file was deleted); call share_file');
  if (v.status === 'ready') throw new AppError('CONFLICT', 'this upload is already complete', { reason: 'already_complete' });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > v.size_bytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'the body is larger than the declared size_bytes', { reason: 'size_mismatch' });
  }
  const blobs = blobsOf(core);
  const tmp = blobs.tempPath(`${fileId}.v${version}`);
  const hash = createHash('sha256');
  let received = 0;
  const limit = v.size_bytes;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      received += chunk.length;
      if (received > limit) return cb(new AppError('PAYLOAD_TOO_LARGE', 'the body is larger than the declared size_bytes', { reason: 'size_mismatch' }));
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  try {
    // flush: the bytes are fsynced before the file closes, so a crash never leaves a short upload behind.
    await streamInto(req, meter, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }));
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  const sha256 = hash.digest('hex');
  // Rename and record in one synchronous step: concurrent PUTs cannot interleave their bytes and their row.
  if (!pendingUploadExists(db, fileId, version)) {
    rmSync(tmp, { force: true });
    throw new AppError('CONFLICT', 'this upload was completed or deleted meanwhile', { reason: 'already_complete' });
  }
  renameSync(tmp, blobs.uploadPath(fileId, version));
  setReceived(db, fileId, version, received, sha256);
  await core.durable();
  sendJson(res, 200, {
    file_id: fileId,
    version,
    received_bytes: received,
    sha256,
    matches_declaration: received === v.size_bytes && sha256 === v.sha256,
    status: 'quarantined',
    next: 'call complete_file_upload with this file_id to release the file',
  });
}

/**
 * req -> meter -> file with backpressure (pipe): at most a few chunks are ever in memory.
 * Settles when the file has been flushed and closed, or on the first failure of any side.
 */
function streamInto(req: IncomingMessage, meter: Transform, file: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(meter);
      meter.destroy();
      file.destroy();
      reject(err);
    };
    req.on('error', fail);
    req.on('close', () => {
      if (!req.complete) fail(new AppError('UNAVAILABLE', 'the upload was interrupted; PUT the bytes again', { retryable: true }));
    });
    meter.on('error', fail);
    file.on('error', fail);
    // 'close' comes after 'finish', once the descriptor is flushed and closed.
    file.on('close', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    req.pipe(meter).pipe(file);
  });
}

// Passive types a browser only displays or hands to a viewer: served as stored. Anything else
// (JavaScript, HTML, SVG, XML, CSS, wasm, unknown types…) could run as part of the UI's origin,
// so it goes out as application/octet-stream; the stored type is still reported in the file entry.
const PASSIVE_TYPES = new Set([
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/json',
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/octet-stream',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
]);

/** The content type a download is served with on the UI's origin. */
export function servedContentType(stored: string): string {
  const base = stored.split(';')[0]!.trim().toLowerCase();
  if (PASSIVE_TYPES.has(base) || /^(audio|video)\/[a-z0-9.+-]+$/.test(base)) return stored;
  return 'application/octet-stream';
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^A-Za-z0-9._ -]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range; anything else serves the whole file. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

async function serveDownload(core: Core, req: IncomingMessage, res: ServerResponse, url: URL, fileId: string) {
  const { db } = core;
  const version = verifyPresigned(core, 'download', fileId, url);
  const v = getVersion(db, fileId, version);
  if (!v || !fileById(db, fileId)) throw new AppError('NOT_FOUND', 'this file no longer exists');
  if (v.status !== 'ready') throw new AppError('CONFLICT', 'this version is quarantined; its bytes are not served', { reason: 'quarantined' });
  const path = blobsOf(core).pathOf(v.sha256);
  const size = statSync(path).size;
  const headers: Record<string, string> = {
    'content-type': servedContentType(v.content_type),
    'accept-ranges': 'bytes',
    etag: `"${v.sha256}"`,
    'content-disposition': contentDisposition(v.filename),
    'x-content-type-options': 'nosniff',
    // Served on the UI's origin: never let a downloaded file run as a page there.
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': 'private, no-store',
  };
  const range = parseRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${size}`, 'content-length': '0' });
    res.end();
    return;
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const length = size === 0 ? 0 : end - start + 1;
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  headers['content-length'] = String(length);
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }
  // 1 MiB reads: a quarter of the syscalls and event-loop turns of the 64 KiB default, memory still bounded.
  await pipeline(createReadStream(path, { start, end, highWaterMark: 1024 * 1024 }), res);
}
