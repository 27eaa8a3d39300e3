import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

describe('feedback consent', () => {
  let s: TestApp;
  let a: TestAgent;
  let b: TestAgent;
  let ca: AppClient;
  let cb: AppClient;

  beforeAll(async () => {
    s = await openTestApp();
    a = await s.agent('Consenter');
    b = await s.agent('Neighbour');
    ca = await s.connect(a.credential);
    cb = await s.connect(b.credential);
  });
  afterAll(async () => s.stop());

  it('both flags default off', async () => {
    expect(await ok(ca, 'get_feedback_consent')).toEqual({ plate: a.plate, bugs: false, product: false, granted_at: null, revoked: false });
    expect(await ok(ca, 'get_feedback_consent', { plate: a.plate })).toMatchObject({ bugs: false, product: false });
  });

  it('reads only the own plate: naming another plate is FORBIDDEN', async () => {
    const e = await fails(ca, 'get_feedback_consent', { plate: b.plate });
    expect(e.code).toBe('FORBIDDEN');
    expect(e.reason).toBe('own_plate_only');
    expect(e.message).not.toContain(b.plate);
  });

  it('set_feedback_consent changes only the caller’s plate', async () => {
    const set = await ok(ca, 'set_feedback_consent', { bugs: true });
    expect(set).toMatchObject({ plate: a.plate, bugs: true, product: false, revoked: false });
    expect(Date.parse(set.granted_at)).not.toBeNaN();
    expect(await ok(cb, 'get_feedback_consent')).toMatchObject({ bugs: false, product: false, granted_at: null });
    // There is no way to name another plate when setting.
    const withPlate = await ok(cb, 'set_feedback_consent', { product: true, plate: a.plate } as any);
    expect(withPlate.plate).toBe(b.plate);
    expect(await ok(ca, 'get_feedback_consent')).toMatchObject({ bugs: true, product: false });
  });

  it('a revoked consent reads as both off; granting again starts afresh', async () => {
    await ok(ca, 'set_feedback_consent', { bugs: true, product: true });
    const revoked = await ok(ca, 'set_feedback_consent', { revoked: true });
    expect(revoked).toMatchObject({ bugs: false, product: false, revoked: true, granted_at: null });
    expect(await ok(ca, 'get_feedback_consent')).toMatchObject({ bugs: false, product: false, revoked: true });
    // The owner reads the same through /v1.
    const human = await s.api('GET', `/v1/agents/${a.plate}/feedback-consent`);
    expect(human.status).toBe(200);
    expect(human.body).toMatchObject({ plate: a.plate, bugs: false, product: false, revoked: true });

    const regranted = await ok(ca, 'set_feedback_consent', { bugs: true });
    expect(regranted).toMatchObject({ bugs: true, product: false, revoked: false });
    expect(regranted.granted_at).toEqual(expect.any(String));
    expect((await s.api('GET', `/v1/agents/${a.plate}/feedback-consent`)).body).toMatchObject({ bugs: true, product: false, revoked: false });
  });

  it('refuses contradictory or empty answers', async () => {
    expect((await fails(ca, 'set_feedback_consent', { bugs: true, revoked: true })).code).toBe('INVALID_ARGUMENT');
    expect((await fails(ca, 'set_feedback_consent', {})).code).toBe('INVALID_ARGUMENT');
    expect((await fails(ca, 'set_feedback_consent', { bugs: 'yes' })).code).toBe('INVALID_ARGUMENT');
  });

  it('humans see and set only their own agents’ consent', async () => {
    const other = await s.owner('Other Human');
    expect((await s.api('GET', `/v1/agents/${a.plate}/feedback-consent`, undefined, other.token)).status).toBe(404);
    expect((await s.api('PUT', `/v1/agents/${a.plate}/feedback-consent`, { revoked: true }, other.token)).status).toBe(404);
    const put = await s.api('PUT', `/v1/agents/${b.plate}/feedback-consent`, { bugs: true });
    expect(put.status).toBe(200);
    expect(await ok(cb, 'get_feedback_consent')).toMatchObject({ bugs: true });
  });
});
