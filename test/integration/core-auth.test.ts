import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { ok, type TestAgent } from '../helpers/server.js';
import { sessionIdOf } from '../helpers/core.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * The rules of agent authentication (passports, credentials, revocation), in process: each connect
 * and each call goes through the real authentication of the MCP resources. What crosses the wire
 * (no or non-Bearer Authorization header, WWW-Authenticate, a session id reused by another plate,
 * Host and Origin checks) is tested over HTTP in test/integration/http-adapter.test.ts.
 */
describe('authentication on the MCP resources', () => {
  let s: TestApp;
  let a: TestAgent;
  let b: TestAgent;
  let ownerId: string;
  let serverKey: KeyObject;
  let room: string;

  beforeAll(async () => {
    s = await openTestApp();
    a = await s.agent('Alpha');
    b = await s.agent('Beta');
    room = await s.room('Auth');
    await s.join(room, a.plate);
    await s.join(room, b.plate);
    ownerId = (await s.api('GET', '/v1/me')).body.owner_id;
    serverKey = createPrivateKey(readFileSync(join(s.home, 'keys', 'passport-ed25519.pem')));
  });
  afterAll(async () => s.stop());

  /** A passport built by hand; defaults are what the server itself would sign. */
  async function passport(
    agent: TestAgent,
    o: { key?: KeyObject; alg?: string; aud?: string; iat?: number; exp?: number; iss?: string } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ aid: agent.agent_id, own: ownerId, scopes: 31, cid: agent.credential_id, did: agent.device_id })
      .setProtectedHeader({ alg: o.alg ?? 'EdDSA', typ: 'JWT' })
      .setIssuer(o.iss ?? 'agent-rooms')
      .setAudience(o.aud ?? `${s.baseUrl}/mcp`)
      .setSubject(agent.plate)
      .setJti(`pp_test_${Math.random()}`)
      .setIssuedAt(o.iat ?? now)
      .setExpirationTime(o.exp ?? now + 600)
      .sign(o.key ?? serverKey);
  }

  /** The refusal of a connect (the official client's error: status in `code`, the JSON body in the message). */
  async function expect401(token: string | undefined, host?: string) {
    const sessions = s.running.core.sessions.size;
    const err = (await s.connect(token ?? '', host).then(
      () => undefined,
      (e: unknown) => e,
    )) as (Error & { code?: number }) | undefined;
    expect(err, `token ${String(token).slice(0, 40)}`).toBeInstanceOf(Error);
    expect(err!.code, `token ${String(token).slice(0, 40)}`).toBe(401);
    expect(s.running.core.sessions.size).toBe(sessions);
    return JSON.parse(err!.message.slice(err!.message.indexOf('{'))) as { error: { code: string; reason?: string } };
  }

  it('a hand-made passport signed with the server key works (control for the attacks below)', async () => {
    const c = await s.connect(await passport(a));
    expect(sessionIdOf(c)).toBeTruthy();
    expect((await ok(c, 'whoami')).plate).toBe(a.plate);
  });

  it('garbage and malformed tokens, and none, are refused before any session exists', async () => {
    await expect401(undefined);
    await expect401('garbage');
    await expect401('ark_' + 'A'.repeat(43));
    await expect401('a.b.c');
    await expect401(undefined, 'claude-code');
  });

  it('an expired passport signed with the server key is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = await expect401(await passport(a, { iat: now - 3600, exp: now - 1800 }));
    expect(body.error.reason).toBe('passport_expired');
  });

  it('alg none is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: 'agent-rooms', aud: `${s.baseUrl}/mcp`, sub: a.plate, aid: a.agent_id, own: ownerId, scopes: 31, cid: a.credential_id, did: a.device_id, jti: 'x', iat: now, exp: now + 600 };
    await expect401(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`);
    await expect401(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.${Buffer.from('sig').toString('base64url')}`);
  });

  it('HS256 signed with the public key bytes (algorithm confusion) is refused', async () => {
    const pub = createPublicKey(serverKey);
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: 'agent-rooms', aud: `${s.baseUrl}/mcp`, sub: a.plate, aid: a.agent_id, own: ownerId, scopes: 31, cid: a.credential_id, did: a.device_id, jti: 'x', iat: now, exp: now + 600 };
    const signingInput = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
    for (const secret of [pub.export({ type: 'spki', format: 'pem' }), pub.export({ type: 'spki', format: 'der' }), pub.export({ format: 'jwk' }).x!]) {
      const sig = createHmac('sha256', secret).update(signingInput).digest('base64url');
      await expect401(`${signingInput}.${sig}`);
    }
  });

  it('a wrong audience or issuer is refused', async () => {
    await expect401(await passport(a, { aud: 'http://127.0.0.1:1/mcp' }));
    await expect401(await passport(a, { aud: `${s.baseUrl}/mcp/codex` }));
    await expect401(await passport(a, { iss: 'someone-else' }));
  });

  it('a token signed by another Ed25519 key is refused', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    await expect401(await passport(a, { key: privateKey }));
  });

  it('a passport from POST /v1/auth/passport, a bearer credential and ?key= all work', async () => {
    const minted = await s.api('POST', '/v1/auth/passport', undefined, a.credential);
    expect(minted.status).toBe(200);
    const p = minted.body as { token_type: string; expires_in: number; passport: string };
    expect(p.token_type).toBe('Bearer');
    expect(p.expires_in).toBeGreaterThan(800);
    expect(p.expires_in).toBeLessThanOrEqual(900);
    const header = JSON.parse(Buffer.from(p.passport.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('EdDSA');
    expect(header.kid).toBeTypeOf('string');
    const claims = JSON.parse(Buffer.from(p.passport.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: a.plate, aid: a.agent_id, own: ownerId, scopes: 31, cid: a.credential_id, did: a.device_id });
    expect(claims.exp - claims.iat).toBe(900);

    for (const c of [await s.connect(p.passport), await s.connect(a.credential), await s.connect('', undefined, { query: `?key=${a.credential}` })]) {
      expect((await ok(c, 'whoami')).plate).toBe(a.plate);
    }
    // The passport also works on a host-bound resource.
    expect((await ok(await s.connect(p.passport, 'claude-code'), 'whoami')).host).toBe('claude-code');

    const bad = await s.api('POST', '/v1/auth/passport', undefined, 'ark_nope');
    expect(bad.status).toBe(401);
    expect(bad.body.error).toMatchObject({ code: 'UNAUTHENTICATED', error_id: expect.stringMatching(/^err_/) });
    // With no Authorization header at all: http-adapter.test.ts.
  });

  describe('revocation takes effect on the very next call', () => {
    async function liveAgent(name: string) {
      const ag = await s.agent(name);
      await s.join(room, ag.plate);
      const p = (await s.api('POST', '/v1/auth/passport', undefined, ag.credential)).body.passport as string;
      const viaCred = await s.connect(ag.credential);
      const viaPassport = await s.connect(p);
      await ok(viaCred, 'whoami');
      await ok(viaPassport, 'whoami');
      return { ag, p, viaCred, viaPassport };
    }

    async function expectDead(x: { ag: TestAgent; p: string; viaCred: AppClient; viaPassport: AppClient }) {
      await expect(x.viaCred.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
      await expect(x.viaPassport.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
      await expect401(x.p);
      await expect401(x.ag.credential);
      const mint = await s.api('POST', '/v1/auth/passport', undefined, x.ag.credential);
      expect(mint.status).toBe(401);
      expect(s.running.core.sessions.ofPlate(x.ag.plate)).toHaveLength(0);
    }

    it('DELETE /v1/credentials/:id', async () => {
      const x = await liveAgent('Cred Revoked');
      const bystander = await s.connect(b.credential);
      const r = await s.api('DELETE', `/v1/credentials/${x.ag.credential_id}`);
      expect(r.status).toBe(200);
      await expectDead(x);
      await ok(bystander, 'whoami');
    });

    it('POST /v1/agents/:plate/revoke', async () => {
      const x = await liveAgent('Agent Revoked');
      const second = await s.api('POST', `/v1/agents/${x.ag.plate}/credentials`, { device: 'laptop' });
      expect(second.status).toBe(201);
      const r = await s.api('POST', `/v1/agents/${x.ag.plate}/revoke`);
      expect(r.status).toBe(200);
      await expectDead(x);
      await expect401(second.body.credential);
      await ok(await s.connect(b.credential), 'whoami');
    });

    it('POST /v1/devices/:id/revoke', async () => {
      const x = await liveAgent('Device Revoked');
      const other = await s.api('POST', `/v1/agents/${x.ag.plate}/credentials`, { device: 'other' });
      const r = await s.api('POST', `/v1/devices/${x.ag.device_id}/revoke`);
      expect(r.status).toBe(200);
      await expectDead(x);
      // The agent's credential on another device still works.
      expect((await ok(await s.connect(other.body.credential), 'whoami')).plate).toBe(x.ag.plate);
    });

    it('another owner cannot revoke what is not theirs', async () => {
      const o2 = await s.owner('Other Owner');
      expect((await s.api('DELETE', `/v1/credentials/${a.credential_id}`, undefined, o2.token)).status).toBe(404);
      expect((await s.api('POST', `/v1/agents/${a.plate}/revoke`, undefined, o2.token)).status).toBe(404);
      expect((await s.api('POST', `/v1/devices/${a.device_id}/revoke`, undefined, o2.token)).status).toBe(404);
      expect((await ok(await s.connect(a.credential), 'whoami')).plate).toBe(a.plate);
    });
  });
});
