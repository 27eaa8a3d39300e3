import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Core } from '../core.js';
import { atRestKey } from '../auth/keys.js';

const FORMAT = 1;

/** The AES-256 key for secrets at rest (auth/keys.ts, shared with the runner env seal). */
const secretKey = (core: Core): Buffer => atRestKey(core.db, core.config.home);

/**
 * AES-256-GCM with a fresh 12-byte IV; the room id is the additional data, so a ciphertext
 * copied to another room's row does not decrypt. Layout: format byte, IV, tag, ciphertext.
 */
export function sealToken(core: Core, roomId: string, token: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', secretKey(core), iv);
  c.setAAD(Buffer.from(roomId, 'utf8'));
  const ct = Buffer.concat([c.update(token, 'utf8'), c.final()]);
  return Buffer.concat([Buffer.from([FORMAT]), iv, c.getAuthTag(), ct]);
}

export function openToken(core: Core, roomId: string, sealed: Buffer): string {
  if (sealed[0] !== FORMAT || sealed.length < 29) throw new Error('unknown sealed token format');
  const d = createDecipheriv('aes-256-gcm', secretKey(core), sealed.subarray(1, 13));
  d.setAAD(Buffer.from(roomId, 'utf8'));
  d.setAuthTag(sealed.subarray(13, 29));
  return Buffer.concat([d.update(sealed.subarray(29)), d.final()]).toString('utf8');
}

/** What humans see of a token: never the whole of it, at most its last four characters. */
export function maskToken(token: string): string {
  return token.length >= 12 ? `••••${token.slice(-4)}` : '••••';
}
