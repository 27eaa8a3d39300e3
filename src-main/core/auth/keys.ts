import { generateKeyPairSync, createPrivateKey, createPublicKey, createHash, type KeyObject } from 'node:crypto';
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
