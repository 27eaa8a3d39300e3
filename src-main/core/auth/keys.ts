import { generateKeyPairSync, createPrivateKey, createPublicKey, createHash, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** Loads the Ed25519 passport signing key from `<home>/keys/`, creating it (mode 0600) on first start. */
export function loadSigningKey(home: string): SigningKey {
  const dir = join(home, 'keys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'passport-ed25519.pem');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  const privateKey = createPrivateKey(readFileSync(file));
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const kid = createHash('sha256').update(der).digest('base64url').slice(0, 16);
  return { kid, privateKey, publicKey };
}

/** A 32-byte secret kept in `<home>/keys/NAME` (mode 0600), created on first use. */
export function loadSecretKey(home: string, name: string, make: () => Buffer): Buffer {
  const dir = join(home, 'keys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  if (!existsSync(file)) writeFileSync(file, make().toString('base64'), { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}

const atRestKeys = new WeakMap<object, Buffer>();

/**
 * The AES-256 key for secrets at rest (workspace git tokens, runner env values), kept in
 * `<home>/keys/workspace-aes256.key` (mode 0600). Read once per open store (`store`, the
 * home's database handle), so a restore that replaces the home is read again by the next core.
 */
export function atRestKey(store: object, home: string): Buffer {
  let k = atRestKeys.get(store);
  if (!k) {
    k = loadSecretKey(home, 'workspace-aes256.key', () => randomBytes(32));
    atRestKeys.set(store, k);
  }
  return k;
}
