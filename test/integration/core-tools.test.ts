import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, type TestAgent } from '../helpers/server.js';
import { callChecked, count, expectToolError, sessionIdOf } from '../helpers/core.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

const ALL_CORE_TOOLS = ['whoami', 'check_mentions', 'ack_mentions', 'list_rooms', 'read_room', 'list_members', 'send_message', 'resolve_handle', 'list_instances'];

describe('core tools', () => {
  let s: TestApp;
  let alice: TestAgent;
  let bob: TestAgent;
  let reader: TestAgent;
  let outsider: TestAgent;
  let room: string;
  let otherRoom: string;
  let ca: AppClient;
  let cb: AppClient;
  let cr: AppClient;
  let co: AppClient;

  beforeAll(async () => {
    s = await openTestApp();
    alice = await s.agent('Alice');
    bob = await s.agent('Bob');
    reader = await s.agent('Reader', { scopes: ['READ'] });
    outsider = await s.agent('Outsider');
    room = await s.room('Main');
    otherRoom = await s.room('Other');
    for (const a of [alice, bob, reader]) await s.join(room, a.plate);
    await s.join(otherRoom, outsider.plate);
    ca = await s.connect(alice.credential);
    cb = await s.connect(bob.credential);
    cr = await s.connect(reader.credential);
    co = await s.connect(outsider.credential);
  });
  afterAll(async () => s.stop());

  it('tools/list shows only the tools the caller’s scopes allow', async () => {
    const full = (await ca.listTools()).tools.map((t) => t.name);
    for (const t of ALL_CORE_TOOLS) expect(full).toContain(t);
    const readOnly = (await cr.listTools()).tools.map((t) => t.name);
    expect(readOnly).toContain('whoami');
    expect(readOnly).toContain('read_room');
    expect(readOnly).not.toContain('send_message');
    expect(readOnly).not.toContain('ack_mentions');
  });

  it('whoami: plate, name, owner, verified, scopes, pending_mentions, session_id', async () => {
    const me = (await callChecked(ca, 'whoami')).structuredContent;
    expect(me).toMatchObject({ plate: alice.plate, name: 'Alice', verified: true, handle: '@alice(ada-owner)' });
    expect(me.owner.name).toBe('Ada Owner');
    expect(me.scopes).toEqual(['READ', 'WRITE', 'UPLOAD', 'DOWNLOAD', 'INVOKE']);
    expect(me.pending_mentions).toBeTypeOf('number');
    expect(me.session_id).toBe(sessionIdOf(ca));
    const r = (await callChecked(cr, 'whoami')).structuredContent;
    expect(r.scopes).toEqual(['READ']);
  });

  it('list_rooms lists only the caller’s rooms', async () => {
    // Agents and rooms of its own: other tests add alice to rooms, in whatever order they run.
    const mine = await s.agent('Lister');
    const stranger = await s.agent('Stranger');
    const listed = await s.room('Listed');
    const notListed = await s.room('Not listed');
    await s.join(listed, mine.plate);
    await s.join(notListed, stranger.plate);
    const cm = await s.connect(mine.credential);
    const cs = await s.connect(stranger.credential);
    const rooms = (await callChecked(cm, 'list_rooms')).structuredContent.rooms.map((r: any) => r.room_id);
    expect(rooms).toEqual([listed]);
    const theirs = (await callChecked(cs, 'list_rooms')).structuredContent.rooms.map((r: any) => r.room_id);
    expect(theirs).toEqual([notListed]);
    await cm.close();
    await cs.close();
  });

  it('list_members: humans and agents; refusals', async () => {
    const m = (await callChecked(ca, 'list_members', { room })).structuredContent;
    expect(m.humans.map((h: any) => h.name)).toEqual(['Ada Owner']);
    expect(m.agents.map((a: any) => a.handle).sort()).toEqual(['@alice(ada-owner)', '@bob(ada-owner)', '@reader(ada-owner)']);
    await expectToolError(s, co, 'list_members', { room }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'list_members', { room: 'room_nope' }, 'NOT_FOUND');
    await expectToolError(s, ca, 'list_members', {}, 'INVALID_ARGUMENT');
  });

  it('send_message and read_room: the sender is the authenticated plate, whatever the arguments say', async () => {
    const before = count(s, 'messages');
    const m = (await callChecked(ca, 'send_message', { room, body: 'hi from alice', sender: bob.plate, plate: bob.plate })).structuredContent;
    // The answer is the message's place, not its body or sender back (docs/contract.md, "What send_message answers").
    expect(Object.keys(m).sort()).toEqual(['created_at', 'mentions', 'message_id', 'parent_id', 'room', 'seq', 'wakes']);
    expect(count(s, 'messages')).toBe(before + 1);
    expect(count(s, 'messages', 'id = ? AND sender_plate = ?', m.message_id, alice.plate)).toBe(1);
    const h = (await callChecked(cb, 'read_room', { room })).structuredContent;
    expect(h.messages.at(-1)).toMatchObject({ message_id: m.message_id, body: 'hi from alice', sender: { kind: 'agent', plate: alice.plate, handle: '@alice(ada-owner)' } });
  });

  it('send_message refusals: not a member, unknown room, bad arguments, oversize body; no row written', async () => {
    const before = count(s, 'messages');
    await expectToolError(s, co, 'send_message', { room, body: 'x' }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'send_message', { room: 'room_missing', body: 'x' }, 'NOT_FOUND');
    await expectToolError(s, ca, 'send_message', { room, body: 42 }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'send_message', { room }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'send_message', { room, body: '   ' }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'send_message', { room, body: 'x', mention_targets: ['@nobody(ada-owner)'] }, 'INVALID_ARGUMENT');
    const big = await expectToolError(s, ca, 'send_message', { room, body: 'x'.repeat(64 * 1024 + 1) }, 'PAYLOAD_TOO_LARGE');
    expect(big.http_status).toBe(413);
    // Multi-byte text counts in bytes; a body far over the limit is still PAYLOAD_TOO_LARGE, not a schema error.
    await expectToolError(s, ca, 'send_message', { room, body: 'é'.repeat(33 * 1024) }, 'PAYLOAD_TOO_LARGE');
    await expectToolError(s, ca, 'send_message', { room, body: 'y'.repeat(300 * 1024) }, 'PAYLOAD_TOO_LARGE');
    expect(count(s, 'messages')).toBe(before);
    // Exactly at the limit is fine.
    await ok(ca, 'send_message', { room, body: 'z'.repeat(64 * 1024) });
    expect(count(s, 'messages')).toBe(before + 1);
  });

  it('missing scope: SCOPE_MISSING before any work, no row written', async () => {
    const msgs = count(s, 'messages');
    const mentions = count(s, 'mentions');
    const idem = count(s, 'idempotency');
    const e = await expectToolError(s, cr, 'send_message', { room, body: 'should not land', mention_targets: [alice.handle], idempotency_key: 'k-scope' }, 'SCOPE_MISSING');
    expect(e.http_status).toBe(403);
    expect(count(s, 'messages')).toBe(msgs);
    expect(count(s, 'mentions')).toBe(mentions);
    expect(count(s, 'idempotency')).toBe(idem);
    // Scope is checked first: even for a room the agent cannot see, and with bad arguments.
    await expectToolError(s, cr, 'send_message', { room: otherRoom, body: 'x' }, 'SCOPE_MISSING');
    await expectToolError(s, cr, 'send_message', { body: 12 }, 'SCOPE_MISSING');

    // ack_mentions needs WRITE: the reader's inbox item stays open.
    const sent = await ok(ca, 'send_message', { room, body: 'for the reader', mention_targets: [reader.handle] });
    const open = count(s, 'mentions', 'plate = ? AND message_id = ? AND acked_at IS NULL', reader.plate, sent.message_id);
    expect(open).toBe(1);
    const items = (await callChecked(cr, 'check_mentions', { room })).structuredContent.items;
    const item = items.find((i: any) => i.message?.message_id === sent.message_id);
    await expectToolError(s, cr, 'ack_mentions', { mention_ids: [item.mention_id] }, 'SCOPE_MISSING');
    expect(count(s, 'mentions', 'id = ? AND acked_at IS NULL', item.mention_id)).toBe(1);
  });

  it('read_room pages backwards with before_seq; refusals', async () => {
    const r = await s.room('Paging');
    await s.join(r, alice.plate);
    for (let i = 1; i <= 5; i++) await ok(ca, 'send_message', { room: r, body: `m${i}` });
    const p1 = (await callChecked(ca, 'read_room', { room: r, limit: 2 })).structuredContent;
    expect(p1.messages.map((m: any) => [m.seq, m.body])).toEqual([
      [4, 'm4'],
      [5, 'm5'],
    ]);
    expect(p1).toMatchObject({ has_more: true, next_before_seq: 4 });
    const p2 = (await callChecked(ca, 'read_room', { room: r, limit: 2, before_seq: p1.next_before_seq })).structuredContent;
    expect(p2.messages.map((m: any) => m.body)).toEqual(['m2', 'm3']);
    const p3 = (await callChecked(ca, 'read_room', { room: r, limit: 2, before_seq: p2.next_before_seq })).structuredContent;
    expect(p3.messages.map((m: any) => m.body)).toEqual(['m1']);
    expect(p3).toMatchObject({ has_more: false, next_before_seq: null });
    await expectToolError(s, co, 'read_room', { room: r }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'read_room', { room: 'room_x' }, 'NOT_FOUND');
    await expectToolError(s, ca, 'read_room', { room: r, limit: 0 }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'read_room', { room: r, limit: 201 }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'read_room', { room: r, before_seq: 'x' }, 'INVALID_ARGUMENT');
  });

  it('mentions are delivered from structured targets only, never from the body', async () => {
    const r = await s.room('Mentions');
    await s.join(r, alice.plate);
    await s.join(r, bob.plate);
    const inboxOf = async (c: AppClient) => (await callChecked(c, 'check_mentions', { room: r })).structuredContent.items;

    // A body that looks like a mention, but no targets: no inbox item.
    const before = count(s, 'mentions', 'plate = ?', bob.plate);
    const plain = await callChecked(ca, 'send_message', { room: r, body: 'hey @bob(ada-owner) and @bob, see this' });
    expect(plain.structuredContent.mentions).toEqual([]);
    expect(count(s, 'mentions', 'plate = ?', bob.plate)).toBe(before);
    expect(await inboxOf(cb)).toEqual([]);

    // With a handle target, a plate target (via the `mentions` alias): one item each.
    const pendingBefore = (await callChecked(cb, 'whoami')).structuredContent.pending_mentions;
    const m1 = (await callChecked(ca, 'send_message', { room: r, body: 'no names in here', mention_targets: ['@bob(ada-owner)'] })).structuredContent;
    expect(m1.mentions).toEqual([{ kind: 'agent', handle: '@bob(ada-owner)', plate: bob.plate, owner_id: expect.any(String) }]);
    const m2 = (await callChecked(ca, 'send_message', { room: r, body: 'second', mentions: [bob.plate] })).structuredContent;
    const items = await inboxOf(cb);
    expect(items.map((i: any) => i.message.message_id)).toEqual([m1.message_id, m2.message_id]);
    for (const i of items) {
      expect(i.mention_id).toBeTypeOf('string');
      expect(i.trust_level).toBe('same_owner');
      expect(i.message.from).toEqual({ kind: 'agent', handle: '@alice(ada-owner)' });
    }
    const whoami = await callChecked(cb, 'whoami');
    expect(whoami.structuredContent.pending_mentions).toBe(pendingBefore + 2);
    expect(whoami._meta!.pending_mentions).toBe(pendingBefore + 2);

    // since_seq and limit page the inbox.
    const page = (await callChecked(cb, 'check_mentions', { room: r, limit: 1 })).structuredContent;
    expect(page.items).toHaveLength(1);
    expect(page.has_more).toBe(true);
    const rest = (await callChecked(cb, 'check_mentions', { room: r, since_seq: page.next_since_seq })).structuredContent;
    expect(rest.items.map((i: any) => i.mention_id)).toEqual([items[1].mention_id]);

    // ack_mention_ids on send_message clears the item in the same call (its own _meta shows it).
    const reply = await callChecked(cb, 'send_message', { room: r, body: 'on it', parent_id: m1.message_id, ack_mention_ids: [items[0].mention_id] });
    expect(reply.isError).toBeFalsy();
    expect(reply.structuredContent.parent_id).toBe(m1.message_id);
    expect(reply._meta!.pending_mentions).toBe(pendingBefore + 1);
    expect((await inboxOf(cb)).map((i: any) => i.mention_id)).toEqual([items[1].mention_id]);

    // Another agent cannot clear bob's items.
    await ok(ca, 'ack_mentions', { mention_ids: [items[1].mention_id] });
    expect(count(s, 'mentions', 'id = ? AND acked_at IS NULL', items[1].mention_id)).toBe(1);

    // Legacy ack_mentions clears the rest.
    const acked = await callChecked(cb, 'ack_mentions', { mention_ids: [items[1].mention_id] });
    expect(acked.structuredContent.acked).toBe(1);
    expect(acked._meta!.pending_mentions).toBe(pendingBefore);
    expect(await inboxOf(cb)).toEqual([]);
  });

  it('check_mentions and ack_mentions refusals, ack by last_mention_seq', async () => {
    await expectToolError(s, co, 'check_mentions', { room }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'check_mentions', { rooms: ['room_zzz'] }, 'NOT_FOUND');
    await expectToolError(s, ca, 'check_mentions', { limit: 'ten' }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'ack_mentions', {}, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'ack_mentions', { mention_ids: 'x' }, 'INVALID_ARGUMENT');
    await expectToolError(s, ca, 'send_message', { room, body: 'x', parent_id: 'msg_nope' }, 'INVALID_ARGUMENT');

    for (let i = 0; i < 3; i++) await ok(cb, 'send_message', { room, body: `ping ${i}`, mention_targets: [alice.handle] });
    const items = (await ok(ca, 'check_mentions', {})).items;
    expect(items.length).toBeGreaterThanOrEqual(3);
    const last = items.at(-1).seq;
    const r = await callChecked(ca, 'ack_mentions', { last_mention_seq: last });
    expect(r.structuredContent.acked).toBe(items.length);
    expect(r._meta!.pending_mentions).toBe(0);
  });

  it('resolve_handle and list_instances: live instances; refusals', async () => {
    const sid = sessionIdOf(cb);
    const res = (await callChecked(ca, 'resolve_handle', { room, handle: '@bob(ada-owner)' })).structuredContent;
    expect(res.candidates).toHaveLength(1);
    expect(res.candidates[0]).toMatchObject({ plate: bob.plate, handle: '@bob(ada-owner)' });
    expect(res.candidates[0].instances.map((i: any) => i.instance_id)).toEqual([sid]);
    const label = res.candidates[0].instances[0].handle.split('#')[1];
    const bySession = (await ok(ca, 'resolve_handle', { room, handle: `@bob#${label}` })).candidates[0].instances;
    expect(bySession.map((i: any) => i.instance_id)).toEqual([sid]);
    expect((await ok(ca, 'resolve_handle', { room, handle: '@bob#zzzzzzzz' })).candidates[0].instances).toEqual([]);
    expect((await ok(ca, 'resolve_handle', { room, handle: '@nobody' })).candidates).toEqual([]);
    await expectToolError(s, ca, 'resolve_handle', { room, handle: 'not a handle!' }, 'INVALID_ARGUMENT');
    await expectToolError(s, co, 'resolve_handle', { room, handle: '@bob' }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'resolve_handle', { room: 'room_q', handle: '@bob' }, 'NOT_FOUND');

    const all = (await callChecked(ca, 'list_instances', { room })).structuredContent.instances;
    expect(all.map((i: any) => i.plate).sort()).toEqual([alice.plate, bob.plate, reader.plate].sort());
    const one = (await ok(ca, 'list_instances', { room, plate: bob.plate })).instances;
    expect(one.map((i: any) => i.instance_id)).toEqual([sid]);
    // The outsider is live, but not in this room.
    expect(all.some((i: any) => i.plate === outsider.plate)).toBe(false);
    await expectToolError(s, ca, 'list_instances', { room, plate: 'not-a-plate' }, 'INVALID_ARGUMENT');
    await expectToolError(s, co, 'list_instances', { room }, 'NOT_MEMBER');
    await expectToolError(s, ca, 'list_instances', { room: 'room_q' }, 'NOT_FOUND');
  });

  it('an unknown tool is a structured NOT_FOUND with _meta', async () => {
    await expectToolError(s, ca, 'no_such_tool', {}, 'NOT_FOUND');
  });
});
