import { describe, it, expect, beforeAll } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { receiveRunning } from '../../src-main/core/tasks/service.js';
import { type AppClient } from '../helpers/app.js';
import { appFor, seatFor } from '../helpers/seat.js';

/** The transition table of docs/contract.md "Tasks", row by row, through the real routes and tools (in process). */
describe('tasks: transition table and rules', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  // The worker's seat: its agent, the room and its client; the lead and the worker's second instance beside it.
  const worker = seatFor(s, 'Worker', 'Board');
  let lead: TestAgent;
  let w2: AppClient;
  let l: AppClient;

  beforeAll(async () => {
    lead = await s.agent('Lead');
    await s.join(worker.room, lead.plate);
    w2 = await s.connect(worker.agent.credential);
    l = await s.connect(lead.credential);
  });

  let n = 0;
  const task = (extra: Record<string, unknown> = {}) =>
    ok(l, 'create_task', { room: worker.room, title: `Task ${++n}`, definition_of_done: 'tests pass', assignee: worker.agent.handle, ...extra });
  const doing = async (extra: Record<string, unknown> = {}) => {
    const t = await task(extra);
    await ok(worker.c, 'claim_task', { task_id: t.task_id });
    return t;
  };
  const get = async (id: string) => (await s.api('GET', `/v1/rooms/${worker.room}/tasks/${id}`)).body;
  const db = () => s.running.core.db;

  it('create_task returns the task record, todo in the assignee lane, with handle and consent auto', async () => {
    const t = await task({ detail: 'more', order: 3 });
    expect(t).toMatchObject({ room: worker.room, status: 'todo', assignee: worker.agent.plate, assignee_handle: worker.agent.handle, order: 3, consent_state: 'auto', depends_on: [], blocked_by: [] });
    expect(t.lease).toEqual({ instance_id: null, renewed_at: null, stale: false });
    const b = await ok(worker.c, 'read_board', { room: worker.room });
    const lane = b.lanes.find((x: any) => x.assignee === worker.agent.plate);
    expect(lane.handle).toBe(worker.agent.handle);
    expect(lane.tasks.map((x: any) => x.task_id)).toContain(t.task_id);
    expect(typeof b.context_version).toBe('number');
  });

  it('todo | server-owned running receipt | assigned to the agent -> doing, lease held by the running instance', async () => {
    const t = await task();
    expect(receiveRunning(db(), t.task_id, lead.plate, 'runner-x')).toBe(false);
    expect((await get(t.task_id)).status).toBe('todo');
    expect(receiveRunning(db(), t.task_id, worker.agent.plate, 'runner-1')).toBe(true);
    const after = await get(t.task_id);
    expect(after.status).toBe('doing');
    expect(after.lease.instance_id).toBe('runner-1');
    expect(receiveRunning(db(), t.task_id, worker.agent.plate, 'runner-2')).toBe(false);
  });

  it('todo | claim_task | caller is the assignee -> doing, lease held by the calling instance', async () => {
    const t = await task();
    const me = await ok(worker.c, 'whoami');
    const r = await ok(worker.c, 'claim_task', { task_id: t.task_id });
    expect(r.status).toBe('doing');
    expect(r.claimed).toBe(true);
    expect(r.lease.instance_id).toBe(me.session_id);
    const inst = await ok(l, 'list_instances', { room: worker.room, plate: worker.agent.plate });
    const mine = (inst.instances ?? inst).find((i: any) => i.instance_id === me.session_id);
    expect(mine.working_on.map((x: any) => x.task_id)).toContain(t.task_id);
  });

  it('todo | claim_task | plate differs from assignee -> stays todo, not_assigned (FORBIDDEN 403)', async () => {
    const t = await task();
    const e = await fails(l, 'claim_task', { task_id: t.task_id });
    expect([e.code, e.reason, e.http_status]).toEqual(['FORBIDDEN', 'not_assigned', 403]);
    expect((await get(t.task_id)).status).toBe('todo');
  });

  it('todo or doing | claim_task | another instance of the same agent holds it -> unchanged, already_claimed, do not retry', async () => {
    const t = await doing();
    const e = await fails(w2, 'claim_task', { task_id: t.task_id });
    expect([e.code, e.reason, e.http_status, e.retryable]).toEqual(['CONFLICT', 'already_claimed', 409, false]);
    expect(e.message).toMatch(/do not retry/);
    const again = await ok(worker.c, 'claim_task', { task_id: t.task_id });
    expect(again.claimed).toBe(false);
  });

  it('todo | claim_task | some depends_on task not yet done -> unchanged, blocked_by_deps', async () => {
    const pre = await task();
    const t = await task({ depends_on: [pre.task_id] });
    expect(t.blocked_by).toEqual([pre.task_id]);
    const e = await fails(worker.c, 'claim_task', { task_id: t.task_id });
    expect([e.code, e.reason]).toEqual(['CONFLICT', 'blocked_by_deps']);
    expect((await get(t.task_id)).status).toBe('todo');
  });

  it('doing | complete_task done | handoff_notes present -> done with the board record', async () => {
    const t = await doing();
    const r = await ok(worker.c, 'complete_task', {
      task_id: t.task_id,
      status: 'done',
      summary: 'did it',
      handoff_notes: 'look at x',
      artifacts: ['src/x.ts'],
      result_ref: 'commit abc',
      next: 'ship',
    });
    expect(r).toMatchObject({ status: 'done', summary: 'did it', handoff_notes: 'look at x', artifacts: ['src/x.ts'], result_ref: 'commit abc', next: 'ship' });
    expect(r.lease.instance_id).toBeNull();
    const b = await ok(l, 'read_board', { room: worker.room });
    expect(b.done.map((x: any) => x.task_id)).toContain(t.task_id);
    expect(b.lanes.flatMap((x: any) => x.tasks).map((x: any) => x.task_id)).not.toContain(t.task_id);
  });

  it('doing | complete_task done | handoff_notes missing -> unchanged, rejected, nothing changes', async () => {
    const succ0 = await doing();
    const succ = await task({ depends_on: [succ0.task_id] });
    const before = await get(succ0.task_id);
    const cv = (await ok(l, 'read_board', { room: worker.room })).context_version;
    const e = await fails(worker.c, 'complete_task', { task_id: succ0.task_id, status: 'done', summary: 'x' });
    expect([e.code, e.reason]).toEqual(['INVALID_ARGUMENT', 'handoff_notes_required']);
    const e2 = await fails(worker.c, 'complete_task', { task_id: succ0.task_id, status: 'done', handoff_notes: '   ' });
    expect(e2.reason).toBe('handoff_notes_required');
    expect(await get(succ0.task_id)).toEqual(before);
    expect((await ok(l, 'read_board', { room: worker.room })).context_version).toBe(cv);
    expect(db().prepare('SELECT COUNT(*) AS n FROM wakes WHERE task_id = ?').get(succ.task_id)).toEqual({ n: 0 });
  });

  it('doing | complete_task blocked or failed -> blocked or failed, reason recorded', async () => {
    const a = await doing();
    const b = await doing();
    expect(await ok(worker.c, 'complete_task', { task_id: a.task_id, status: 'blocked', reason: 'need creds' })).toMatchObject({ status: 'blocked', reason: 'need creds' });
    expect(await ok(worker.c, 'complete_task', { task_id: b.task_id, status: 'failed', reason: 'flaky' })).toMatchObject({ status: 'failed', reason: 'flaky' });
    expect((await get(a.task_id)).lease.instance_id).toBeNull();
  });

  it('doing | set_status blocked, failed or todo -> that status, reason recorded for blocked and failed', async () => {
    for (const st of ['blocked', 'failed', 'todo'] as const) {
      const t = await doing();
      const r = await ok(worker.c, 'set_status', { task_id: t.task_id, status: st, reason: 'because' });
      expect(r.status).toBe(st);
      expect(r.reason).toBe(st === 'todo' ? null : 'because');
      expect(r.lease.instance_id).toBeNull();
    }
  });

  it('any | set_status done -> unchanged, 409 CONFLICT "use complete_task"', async () => {
    const a = await task();
    const b = await doing();
    for (const t of [a, b]) {
      const e = await fails(worker.c, 'set_status', { task_id: t.task_id, status: 'done' });
      expect([e.code, e.http_status]).toEqual(['CONFLICT', 409]);
      expect(e.message).toMatch(/use complete_task/);
    }
    expect((await get(a.task_id)).status).toBe('todo');
    expect((await get(b.task_id)).status).toBe('doing');
  });

  it('doing | release_task | explicit self-release -> todo; another agent may not release it', async () => {
    const t = await doing();
    const e = await fails(l, 'release_task', { task_id: t.task_id });
    expect(e.reason).toBe('not_assigned');
    const r = await ok(worker.c, 'release_task', { task_id: t.task_id });
    expect(r.status).toBe('todo');
    expect(r.lease.instance_id).toBeNull();
    expect((await ok(w2, 'claim_task', { task_id: t.task_id })).status).toBe('doing');
  });

  it('doing | release_task | admin force-release (POST …/release) -> todo', async () => {
    const t = await doing();
    const r = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/release`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('todo');
    const todo = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/release`);
    expect(todo.status).toBe(409);
  });

  it('any | cancellation | human board action -> cancelled', async () => {
    const a = await task();
    const b = await doing();
    const c = await doing();
    await ok(worker.c, 'complete_task', { task_id: c.task_id, status: 'done', handoff_notes: 'n' });
    for (const t of [a, b, c]) {
      const r = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/cancel`);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('cancelled');
      expect(r.body.lease.instance_id).toBeNull();
    }
    const board = await ok(worker.c, 'read_board', { room: worker.room });
    expect(board.lanes.flatMap((x: any) => x.tasks).map((x: any) => x.task_id)).not.toContain(a.task_id);
    const cancelled = await ok(worker.c, 'read_board', { room: worker.room, status: 'cancelled' });
    expect(cancelled.lanes.flatMap((x: any) => x.tasks).map((x: any) => x.task_id)).toEqual(expect.arrayContaining([a.task_id, b.task_id, c.task_id]));
  });

  it('any | reassignment | human-only via board -> unchanged status, new assignee', async () => {
    const a = await task();
    const b = await doing();
    const c = await doing();
    await ok(worker.c, 'set_status', { task_id: c.task_id, status: 'blocked', reason: 'r' });
    for (const [t, st] of [[a, 'todo'], [b, 'doing'], [c, 'blocked']] as const) {
      const r = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/assign`, { assignee: lead.handle });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: st, assignee: lead.plate, assignee_handle: lead.handle });
    }
    expect((await ok(l, 'claim_task', { task_id: a.task_id })).status).toBe('doing');
    expect((await fails(worker.c, 'claim_task', { task_id: a.task_id })).reason).toBe('not_assigned');
    const wakes = db().prepare("SELECT event_key FROM wakes WHERE task_id = ? AND trigger = 'assignment'").all(a.task_id) as any[];
    expect(wakes.map((x) => x.event_key)).toEqual([`task:${a.task_id}:assign:0`, `task:${a.task_id}:assign:1`]);
  });

  it('assign_task is not advertised and any call fails FORBIDDEN 403 without touching anything', async () => {
    const list = await worker.c.listTools();
    const names = list.tools.map((t) => t.name);
    expect(names).not.toContain('assign_task');
    for (const n of ['create_task', 'update_task', 'claim_task', 'renew_lease', 'release_task', 'set_status', 'complete_task', 'read_board', 'archive_task', 'set_room_consent']) {
      expect(names).toContain(n);
    }
    const t = await task();
    const before = await get(t.task_id);
    for (const args of [{}, { task_id: t.task_id, assignee: lead.handle }, { task_id: t.task_id, status: 'doing' }]) {
      const e = await fails(l, 'assign_task', args);
      expect([e.code, e.http_status]).toEqual(['FORBIDDEN', 403]);
    }
    expect(await get(t.task_id)).toEqual(before);
  });

  it('legacy accept_task, reject_task, list_pending_consents say nothing is pending and act on nothing', async () => {
    const t = await task();
    const before = await get(t.task_id);
    expect(await ok(worker.c, 'list_pending_consents', {})).toMatchObject({ pending: [] });
    expect(await ok(worker.c, 'accept_task', { task_id: t.task_id })).toMatchObject({ acted: false });
    expect(await ok(worker.c, 'reject_task', { task_id: t.task_id })).toMatchObject({ acted: false });
    expect(await get(t.task_id)).toEqual(before);
  });

  it('rule 1: set_status accepts only todo, blocked, failed', async () => {
    const t = await doing();
    for (const st of ['doing', 'cancelled']) {
      const e = await fails(worker.c, 'set_status', { task_id: t.task_id, status: st });
      expect(e.code).toBe('INVALID_ARGUMENT');
    }
    expect((await get(t.task_id)).status).toBe('doing');
  });

  it('rule 2: the only ways into doing are the running receipt and claim_task; into done only complete_task', async () => {
    const t = await task();
    await fails(worker.c, 'set_status', { task_id: t.task_id, status: 'doing' });
    await fails(worker.c, 'set_status', { task_id: t.task_id, status: 'done' });
    const e = await fails(worker.c, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'n' });
    expect(e.reason).toBe('not_doing');
    expect((await get(t.task_id)).status).toBe('todo');
  });

  it('rule 3: the server never auto-releases, never expires a lease into the pool, never lets another agent take a task', async () => {
    const t = await doing();
    db().prepare('UPDATE tasks SET lease_renewed_at = lease_renewed_at - 3600000 WHERE id = ?').run(t.task_id);
    expect((await fails(w2, 'claim_task', { task_id: t.task_id })).reason).toBe('already_claimed');
    expect((await fails(l, 'claim_task', { task_id: t.task_id })).reason).toBe('not_assigned');
    expect((await fails(l, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'x' })).reason).toBe('not_assigned');
    expect((await fails(l, 'set_status', { task_id: t.task_id, status: 'todo' })).reason).toBe('not_assigned');
    const after = await get(t.task_id);
    expect(after.status).toBe('doing');
    expect(after.assignee).toBe(worker.agent.plate);
    expect(after.lease.stale).toBe(true);
  });

  it('rule 4: renew_lease is a heartbeat from the holder only; a lease not renewed for 120 s is flagged stale and nothing else happens', async () => {
    const t = await doing();
    const fresh = await ok(l, 'read_board', { room: worker.room, status: 'doing', limit: 200 });
    expect(fresh.lanes.flatMap((x: any) => x.tasks).find((x: any) => x.task_id === t.task_id).lease.stale).toBe(false);
    db().prepare('UPDATE tasks SET lease_renewed_at = lease_renewed_at - 121000 WHERE id = ?').run(t.task_id);
    const stale = await ok(l, 'read_board', { room: worker.room, status: 'doing', limit: 200 });
    const st = stale.lanes.flatMap((x: any) => x.tasks).find((x: any) => x.task_id === t.task_id);
    expect(st.lease.stale).toBe(true);
    expect(st.status).toBe('doing');
    // The window reads the limit from the server's board (no copy of "120 s" in the UI); the tool's board stays as it is.
    const onV1 = (await s.api('GET', `/v1/rooms/${worker.room}/board?status=doing`)).body;
    expect(onV1.lease_stale_after_ms).toBe(120_000);
    expect(onV1.lanes.flatMap((x: any) => x.tasks).find((x: any) => x.task_id === t.task_id).lease.stale).toBe(true);
    expect(stale.lease_stale_after_ms).toBeUndefined();
    const e = await fails(w2, 'renew_lease', { task_id: t.task_id });
    expect(e.reason).toBe('not_lease_holder');
    expect((await fails(l, 'renew_lease', { task_id: t.task_id })).reason).toBe('not_assigned');
    const r = await ok(worker.c, 'renew_lease', { task_id: t.task_id });
    expect(r.lease.stale).toBe(false);
    expect(r.status).toBe('doing');
  });

  it('rule 5: dependency edits are validated acyclic (self, two-cycle, long cycle) on create and update', async () => {
    const a = await task();
    const b = await task({ depends_on: [a.task_id] });
    const c = await task({ depends_on: [b.task_id] });
    const d = await task({ depends_on: [c.task_id] });
    expect((await fails(l, 'update_task', { task_id: a.task_id, depends_on: [a.task_id] })).reason).toBe('dependency_cycle');
    expect((await fails(l, 'update_task', { task_id: a.task_id, depends_on: [b.task_id] })).reason).toBe('dependency_cycle');
    expect((await fails(l, 'update_task', { task_id: a.task_id, depends_on: [d.task_id] })).reason).toBe('dependency_cycle');
    expect((await get(a.task_id)).depends_on).toEqual([]);
    expect((await fails(l, 'create_task', { room: worker.room, title: 't', definition_of_done: 'd', assignee: worker.agent.handle, depends_on: ['task_nope'] })).reason).toBe(
      'unknown_dependency',
    );
    const other = await s.room('Other');
    await s.join(other, lead.plate);
    await s.join(other, worker.agent.plate);
    const foreign = await ok(l, 'create_task', { room: other, title: 'f', definition_of_done: 'd', assignee: worker.agent.handle });
    expect((await fails(l, 'create_task', { room: worker.room, title: 't', definition_of_done: 'd', assignee: worker.agent.handle, depends_on: [foreign.task_id] })).reason).toBe(
      'unknown_dependency',
    );
    expect((await fails(l, 'update_task', { task_id: a.task_id, depends_on: [foreign.task_id] })).reason).toBe('unknown_dependency');
    const ok2 = await ok(l, 'update_task', { task_id: d.task_id, depends_on: [a.task_id, c.task_id], title: 'renamed' });
    expect(ok2).toMatchObject({ title: 'renamed', depends_on: [a.task_id, c.task_id], blocked_by: [a.task_id, c.task_id] });
  });

  it('rule 6: done is reached only through complete_task with a handoff (definition_of_done met)', async () => {
    const t = await doing();
    const r = await ok(worker.c, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'dod met: tests pass' });
    expect(r.definition_of_done).toBe('tests pass');
    expect(r.status).toBe('done');
    expect(r.completed_at).not.toBeNull();
    const rows = db().prepare("SELECT COUNT(*) AS n FROM tasks WHERE status = 'done' AND (handoff_notes IS NULL OR completed_at IS NULL)").get();
    expect(rows).toEqual({ n: 0 });
  });

  it('completing the last prerequisite creates exactly one successor wake per unblocked task, with the handoff notes byte for byte', async () => {
    const p1 = await doing();
    const p2 = await doing();
    const s1 = await task({ depends_on: [p1.task_id, p2.task_id] });
    const s2 = await ok(worker.c, 'create_task', { room: worker.room, title: 'for lead', definition_of_done: 'x', assignee: lead.handle, depends_on: [p2.task_id] });
    const s3 = await task({ depends_on: [p1.task_id] });
    const notes = 'Handoff ✓ — "quoted", back\\slash, emoji 🚀\r\nline two\twith tab   \n';
    const r1 = await ok(worker.c, 'complete_task', { task_id: p1.task_id, status: 'done', handoff_notes: 'first notes' });
    expect(r1.unblocked).toEqual([s3.task_id]);
    const r2 = await ok(worker.c, 'complete_task', { task_id: p2.task_id, status: 'done', handoff_notes: notes });
    expect(r2.unblocked.sort()).toEqual([s1.task_id, s2.task_id].sort());
    const rows = db()
      .prepare("SELECT task_id, plate, content, event_key FROM wakes WHERE trigger = 'successor' AND task_id IN (?, ?, ?) ORDER BY seq")
      .all(s1.task_id, s2.task_id, s3.task_id) as any[];
    expect(rows.map((x) => x.task_id).sort()).toEqual([s1.task_id, s2.task_id, s3.task_id].sort());
    const byTask = new Map(rows.map((x) => [x.task_id, x]));
    for (const id of [s1.task_id, s2.task_id]) {
      const payload = JSON.parse(byTask.get(id).content);
      expect(Object.keys(payload).sort()).toEqual(['handoff_notes', 'task']);
      expect(Buffer.from(payload.handoff_notes, 'utf8').equals(Buffer.from(notes, 'utf8'))).toBe(true);
      expect(payload.task.task_id).toBe(id);
      expect(payload.task.blocked_by).toEqual([]);
      expect(byTask.get(id).event_key).toBe(`task:${id}:successor:${p2.task_id}`);
    }
    expect(byTask.get(s2.task_id).plate).toBe(lead.plate);
    expect(JSON.parse(byTask.get(s3.task_id).content).handoff_notes).toBe('first notes');
    const hand = db().prepare('SELECT to_task_id, notes FROM task_handoffs WHERE from_task_id = ?').all(p2.task_id) as any[];
    expect(hand.map((h) => h.to_task_id).sort()).toEqual([s1.task_id, s2.task_id].sort());
    expect(hand.every((h) => h.notes === notes)).toBe(true);
    expect((await ok(worker.c, 'claim_task', { task_id: s1.task_id })).status).toBe('doing');
  });

  it('assignment: the assignee gets an inbox item with task_id and an assignment wake carrying only the task payload; ack_ids clear inbox items', async () => {
    const t = await task();
    const inbox = await ok(worker.c, 'check_mentions', { room: worker.room });
    const item = inbox.items.find((i: any) => i.task_id === t.task_id);
    expect(item).toMatchObject({ kind: 'task', trust_level: 'same_owner' });
    const wake = db().prepare("SELECT content, plate FROM wakes WHERE task_id = ? AND trigger = 'assignment'").get(t.task_id) as any;
    expect(wake.plate).toBe(worker.agent.plate);
    const payload = JSON.parse(wake.content);
    expect(Object.keys(payload)).toEqual(['task']);
    expect(payload.task.task_id).toBe(t.task_id);
    const other = await ok(l, 'send_message', { room: worker.room, body: 'ping', mention_targets: [worker.agent.handle] });
    const mention = (await ok(worker.c, 'check_mentions', { room: worker.room })).items.find((i: any) => i.message?.message_id === other.message_id);
    await ok(worker.c, 'claim_task', { task_id: t.task_id });
    await ok(worker.c, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'n', ack_ids: [mention.mention_id] });
    const left = (await ok(worker.c, 'check_mentions', { room: worker.room })).items.map((i: any) => i.mention_id);
    expect(left).not.toContain(mention.mention_id);
    expect(left).not.toContain(item.mention_id);
  });

  it('create_task is idempotent per key: the same key returns the original task and creates nothing more', async () => {
    const args = { room: worker.room, title: 'idem', definition_of_done: 'd', assignee: worker.agent.handle, idempotency_key: 'k-1' };
    const a = await ok(l, 'create_task', args);
    const b = await ok(l, 'create_task', args);
    expect(b.task_id).toBe(a.task_id);
    expect(b.replayed).toBe(true);
    expect(db().prepare('SELECT COUNT(*) AS n FROM tasks WHERE title = ?').get('idem')).toEqual({ n: 1 });
    const e = await fails(l, 'create_task', { ...args, title: 'other' });
    expect(e.code).toBe('CONFLICT');
  });

  it('lanes group by assignee ordered by order then creation; archived tasks leave the board but stay readable by id', async () => {
    const r2 = await s.room('Lanes');
    await s.join(r2, worker.agent.plate);
    await s.join(r2, lead.plate);
    const mk = (title: string, assignee: string, order?: number) =>
      ok(l, 'create_task', { room: r2, title, definition_of_done: 'd', assignee, ...(order === undefined ? {} : { order }) });
    const x1 = await mk('x1', worker.agent.handle);
    const x2 = await mk('x2', worker.agent.handle, 1);
    const x3 = await mk('x3', worker.agent.handle, 0);
    const y1 = await mk('y1', lead.handle);
    const b = await ok(worker.c, 'read_board', { room: r2 });
    expect(b.lanes.map((x: any) => x.assignee)).toEqual([worker.agent.plate, lead.plate]);
    expect(b.lanes[0].tasks.map((t: any) => t.title)).toEqual(['x3', 'x2', 'x1']);
    expect(b.lanes[1].tasks.map((t: any) => t.task_id)).toEqual([y1.task_id]);
    const only = await ok(worker.c, 'read_board', { room: r2, assignee: lead.handle });
    expect(only.lanes.map((x: any) => x.assignee)).toEqual([lead.plate]);
    await ok(worker.c, 'claim_task', { task_id: x1.task_id });
    await ok(worker.c, 'complete_task', { task_id: x1.task_id, status: 'done', handoff_notes: 'n' });
    expect((await fails(worker.c, 'archive_task', { task_id: x2.task_id })).reason).toBe('not_finished');
    await ok(worker.c, 'archive_task', { task_id: x1.task_id });
    const after = await ok(worker.c, 'read_board', { room: r2 });
    expect(after.done).toEqual([]);
    expect((await get2(r2, x1.task_id)).archived).toBe(true);
    const arch = await ok(worker.c, 'read_board', { room: r2, status: 'archived' });
    expect(arch.done.map((t: any) => t.task_id)).toEqual([x1.task_id]);
    const human = await s.api('GET', `/v1/rooms/${r2}/board`);
    expect(human.status).toBe(200);
    expect(human.body.lanes[0].tasks.map((t: any) => t.task_id)).toEqual([x3.task_id, x2.task_id]);
  });

  const get2 = async (r: string, id: string) => (await s.api('GET', `/v1/rooms/${r}/tasks/${id}`)).body;

  it('humans create tasks with POST /v1/rooms/:id/tasks under the same rules', async () => {
    const r = await s.api('POST', `/v1/rooms/${worker.room}/tasks`, { title: 'by human', definition_of_done: 'd', assignee: worker.agent.handle });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'todo', consent_state: 'auto', assignee: worker.agent.plate });
    const bad = await s.api('POST', `/v1/rooms/${worker.room}/tasks`, { title: 'by human', definition_of_done: 'd', assignee: '@nobody' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(bad.body)).not.toContain('nobody');
  });

  it('humans archive finished tasks with POST …/archive: off the board, still readable by id', async () => {
    const t = await task();
    expect((await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/archive`)).status).toBe(409);
    await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/cancel`);
    const r = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${t.task_id}/archive`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ archived: true, status: 'cancelled' });
    const board = (await s.api('GET', `/v1/rooms/${worker.room}/board?status=cancelled`)).body;
    expect(board.lanes.flatMap((x: any) => x.tasks).map((x: any) => x.task_id)).not.toContain(t.task_id);
    const archived = (await s.api('GET', `/v1/rooms/${worker.room}/board?status=archived`)).body;
    expect(archived.lanes.flatMap((x: any) => x.tasks).map((x: any) => x.task_id)).toContain(t.task_id);
    expect((await get(t.task_id)).task_id).toBe(t.task_id);
  });

  it('unknown ids and junk arguments get a structured public error, never INTERNAL, and never echo the values', async () => {
    const junk = 'task_SECRET-VALUE-123';
    const calls: Array<[string, Record<string, unknown>]> = [
      ['claim_task', { task_id: junk }],
      ['renew_lease', { task_id: junk }],
      ['release_task', { task_id: junk }],
      ['set_status', { task_id: junk, status: 'todo' }],
      ['complete_task', { task_id: junk, status: 'done', handoff_notes: 'n' }],
      ['update_task', { task_id: junk, depends_on: [junk] }],
      ['archive_task', { task_id: junk }],
      ['read_board', { room: junk }],
      ['read_board', { room: worker.room, assignee: '@SECRET-VALUE-123' }],
      ['create_task', { room: worker.room, title: 't', definition_of_done: 'd', assignee: 'SECRET-VALUE-123' }],
      ['create_task', { room: worker.room, title: 't', definition_of_done: 'd', assignee: worker.agent.handle, depends_on: [junk] }],
      ['create_task', { room: worker.room, title: 42, definition_of_done: null, assignee: [] }],
      ['set_status', { task_id: junk, status: 'SECRET-VALUE-123' }],
    ];
    for (const [name, args] of calls) {
      const e = await fails(l, name, args);
      expect(e.code).not.toBe('INTERNAL');
      expect(e.error_id).toMatch(/^err_/);
      expect(e.message).not.toContain('SECRET-VALUE-123');
    }
    const bad = await s.api('POST', `/v1/rooms/${worker.room}/tasks/${junk}/assign`, { assignee: worker.agent.handle });
    expect(bad.status).toBe(404);
  });

  it('a non-member agent cannot read or act on the board', async () => {
    const stranger = await s.agent('Stranger');
    const c = await s.connect(stranger.credential);
    const t = await task();
    expect((await fails(c, 'read_board', { room: worker.room })).code).toBe('NOT_MEMBER');
    expect((await fails(c, 'claim_task', { task_id: t.task_id })).code).toBe('NOT_MEMBER');
  });
});
