import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { SigningKey } from './keys.js';
import { newId } from '../util/ids.js';
import { AppError } from '../errors/app-error.js';

export const PASSPORT_TTL_S = 900;
export const PASSPORT_ISSUER = 'agent-rooms';

export interface PassportClaims {
  sub: string; // plate
  aid: string; // agent id
  own: string; // owner id
  scopes: number; // bitmask
  cid: string; // credential id
  did: string; // device id
  jti: string;
  iat: number;
  exp: number;
}

export interface MintInput {
  plate: string;
  agentId: string;
  ownerId: string;
  scopes: number;
  credentialId: string;
  deviceId: string;
  audience: string | string[];
}

/** Mints and verifies the short-lived EdDSA passports. */
export class PassportService {
  constructor(private readonly key: SigningKey) {}

  async mint(input: MintInput, nowS = Math.floor(Date.now() / 1000)): Promise<{ passport: string; expiresAt: number }> {
    const exp = nowS + PASSPORT_TTL_S;
    const passport = await new SignJWT({
      aid: input.agentId,
      own: input.ownerId,
      scopes: input.scopes,
      cid: input.credentialId,
      did: input.deviceId,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.key.kid, typ: 'JWT' })
      .setIssuer(PASSPORT_ISSUER)
      .setAudience(input.audience)
      .setSubject(input.plate)
      .setJti(newId('pp'))
      .setIssuedAt(nowS)
      .setExpirationTime(exp)
      .sign(this.key.privateKey);
    return { passport, expiresAt: exp };
  }

  /** Verifies signature (EdDSA only), issuer, audience and expiry; revocation is the caller's next step. */
  async verify(token: string, audience: string): Promise<PassportClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: ['EdDSA'],
        issuer: PASSPORT_ISSUER,
        audience,
        requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      });
      const p = payload as Record<string, unknown>;
      for (const k of ['aid', 'own', 'cid', 'did'] as const) {
        if (typeof p[k] !== 'string') throw new Error('claim missing');
      }
      if (typeof p.scopes !== 'number' || !Number.isInteger(p.scopes)) throw new Error('claim missing');
      return p as unknown as PassportClaims;
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError('UNAUTHENTICATED', expired ? 'passport expired; mint a new one' : 'invalid passport', {
        reason: expired ? 'passport_expired' : 'invalid_passport',
      });
    }
  }
}

/** A compact JWS has three base64url parts; anything else presented as a bearer is a credential or garbage. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(token);
}
