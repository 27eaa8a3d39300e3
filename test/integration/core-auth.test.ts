import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { INITIALIZE, rawHttp, rawMcp, sessionIdOf } from '../helpers/core.js';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('authentication on the MCP resources', () => {
  let s: TestServer;
  let a: TestAgent;
  let b: TestAgent;
  let ownerId: string;
  let serverKey: KeyObject;
  let room: string;

  beforeAll(async () => {
    s = await startTestServer();
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

  async function expect401(token: string | undefined, path = '/mcp') {
    const r = await rawMcp(s, INITIALIZE, token === undefined ? {} : { authorization: `Bearer ${token}` }, { path });
    expect(r.status, `token ${String(token).slice(0, 40)}`).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(r.text).not.toContain('"result"');
    return JSON.parse(r.text);
  }

  it('a hand-made passport signed with the server key works (control for the attacks below)', async () => {
    const r = await rawMcp(s, INITIALIZE, { authorization: `Bearer ${await passport(a)}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('no token, garbage and malformed tokens: 401 with WWW-Authenticate: Bearer, before any JSON-RPC', async () => {
    const sessions = s.running.core.sessions.size;
    await expect401(undefined);
    await expect401('garbage');
    await expect401('ark_' + 'A'.repeat(43));
    await expect401('a.b.c');
    await expect401(undefined, '/mcp/claude-code');
    const r = await rawMcp(s, INITIALIZE, { authorization: 'Basic Zm9vOmJhcg==' });
    expect(r.status).toBe(401);
    expect(s.running.core.sessions.size).toBe(sessions);
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
    const minted = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST', headers: { authorization: `Bearer ${a.credential}` } });
    expect(minted.status).toBe(200);
    const p = (await minted.json()) as { token_type: string; expires_in: number; passport: string };
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

    const bad = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST', headers: { authorization: 'Bearer ark_nope' } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as any).error).toMatchObject({ code: 'UNAUTHENTICATED', error_id: expect.stringMatching(/^err_/) });
    const none = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST' });
    expect(none.status).toBe(401);
  });

  it('a second plate reusing another agent’s session id gets 403', async () => {
    const ca = await s.connect(a.credential);
    const sid = sessionIdOf(ca);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'send_message', arguments: { room, body: 'hijack' } } };
    const r = await rawMcp(s, call, { authorization: `Bearer ${b.credential}`, 'mcp-session-id': sid });
    expect(r.status).toBe(403);
    expect(r.text).not.toContain('hijack');
    const h = await ok(ca, 'read_room', { room });
    expect(h.messages.some((m: any) => m.body === 'hijack')).toBe(false);
    // The owner of the session still uses it.
    const mine = await rawMcp(s, { ...call, params: { name: 'whoami', arguments: {} } }, { authorization: `Bearer ${a.credential}`, 'mcp-session-id': sid });
    expect(mine.status).toBe(200);
    expect(mine.text).toContain(a.plate);
  });

  describe('revocation takes effect on the very next call', () => {
    async function liveAgent(name: string) {
      const ag = await s.agent(name);
      await s.join(room, ag.plate);
      const p = ((await (await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST', headers: { authorization: `Bearer ${ag.credential}` } })).json()) as any).passport as string;
      const viaCred = await s.connect(ag.credential);
      const viaPassport = await s.connect(p);
      await ok(viaCred, 'whoami');
      await ok(viaPassport, 'whoami');
      return { ag, p, viaCred, viaPassport };
    }

    async function expectDead(x: { ag: TestAgent; p: string; viaCred: Client; viaPassport: Client }) {
      await expect(x.viaCred.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
      await expect(x.viaPassport.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
      await expect401(x.p);
      await expect401(x.ag.credential);
      const mint = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST', headers: { authorization: `Bearer ${x.ag.credential}` } });
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

  describe('DNS-rebinding defence', () => {
    const init = JSON.stringify(INITIALIZE);
    it('a foreign Host gets 403 on /mcp and /v1', async () => {
      const port = s.running.port;
      const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${a.credential}` };
      const good = await rawHttp(port, { method: 'POST', path: '/mcp', headers: { ...mcpHeaders, host: `localhost:${port}` }, body: init });
      expect(good.status).toBe(200);
      for (const host of ['evil.example:' + port, `127.0.0.1:${port + 1}`, 'attacker.test', `127.0.0.1.evil.test:${port}`]) {
        const r = await rawHttp(port, { method: 'POST', path: '/mcp', headers: { ...mcpHeaders, host }, body: init });
        expect(r.status, host).toBe(403);
        const v1 = await rawHttp(port, { path: '/v1/me', headers: { host, authorization: `Bearer ${s.ownerToken}` } });
        expect(v1.status, host).toBe(403);
        expect(JSON.parse(v1.text).error.code).toBe('FORBIDDEN');
      }
    });

    it('a foreign Origin gets 403; a loopback Origin is allowed', async () => {
      const auth = { authorization: `Bearer ${a.credential}` };
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: 'http://evil.example' })).status).toBe(403);
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: 'null' })).status).toBe(403);
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: `http://localhost:${s.running.port}` })).status).toBe(200);
      const v1 = await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${s.ownerToken}`, origin: 'https://evil.example' } });
      expect(v1.status).toBe(403);
    });
  });
});
