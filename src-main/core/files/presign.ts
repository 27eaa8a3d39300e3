import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Core } from '../core.js';
import { loadSecretKey } from '../auth/keys.js';
import { AppError } from '../errors/app-error.js';

/** Presigned URLs live 15 minutes (docs/contract.md "Limits"). */
export const PRESIGNED_TTL_MS = 15 * 60 * 1000;

export type PresignOp = 'upload' | 'download';

/** The key presigned URLs are signed with (`<home>/url-hmac.key`), read or made at first use. */
export class PresignKey {
  private key?: Buffer;

  constructor(private readonly home: string) {}

  get(): Buffer {
    return (this.key ??= loadSecretKey(this.home, 'url-hmac.key', () => randomBytes(32)));
  }
}

declare module '../core.js' {
  interface CoreServices {
    /** The key of presigned file URLs. */
    presignKey: PresignKey;
  }
}

function signature(core: Core, op: PresignOp, fileId: string, version: number, exp: number): string {
  return createHmac('sha256', core.services.presignKey.get()).update(`agent-rooms/${op}\n${fileId}\n${version}\n${exp}`).digest('base64url');
}

/** A URL on this loopback server for one version of one file, valid until `expires_at`. */
export function presignedUrl(core: Core, op: PresignOp, fileId: string, version: number, now = Date.now()): { url: string; expires_at: string } {
  const exp = Math.floor((now + PRESIGNED_TTL_MS) / 1000);
  const sig = signature(core, op, fileId, version, exp);
  const url = `${core.baseUrl}/files/${op}/${encodeURIComponent(fileId)}?v=${version}&exp=${exp}&sig=${sig}`;
  return { url, expires_at: new Date(exp * 1000).toISOString() };
}

/** Checks a presigned URL's signature, then its expiry; returns the version it grants. */
export function verifyPresigned(core: Core, op: PresignOp, fileId: string, url: URL, now = Date.now()): number {
  const v = url.searchParams.get('v') ?? '';
  const exp = url.searchParams.get('exp') ?? '';
  const sig = url.searchParams.get('sig') ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(v) || !/^[0-9]{1,12}$/.test(exp) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) {
    throw new AppError('FORBIDDEN', 'this presigned URL is malformed; ask for a new one', { reason: 'bad_signature' });
  }
  const expected = Buffer.from(signature(core, op, fileId, Number(v), Number(exp)));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new AppError('FORBIDDEN', 'this presigned URL is not valid (signature mismatch); ask for a new one', { reason: 'bad_signature' });
  }
  if (Number(exp) * 1000 <= now) {
    const next = op === 'upload' ? 'call share_file again' : 'call fetch_file again';
    throw new AppError('FORBIDDEN', `this presigned URL has expired; ${next}`, { reason: 'url_expired' });
  }
  return Number(v);
}
