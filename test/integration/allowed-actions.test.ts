import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ok, type TestAgent, type ApiResponse } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { createHash } from 'node:crypto';
import { handleFileUrl } from '../../src-main/core/files/http.js';
import type { Core } from '../../src-main/core/core.js';
import { DELETED_FILE_ACTIONS, FILE_ACTIONS, TASK_ACTIONS, WAKE_ACTIONS, type TaskAction, type WakeAction } from '../../shared/api-types.js';
import { enqueueWake, finishWake, holdWake, markRunning } from '../../src-main/core/wakes/store.js';

/**
 * PUT of bytes to a presigned upload URL, through the upload handler itself (files/http.ts) without
 * a listener; the URL over HTTP is tested in files-presigned.test.ts.
 */
async function putUpload(core: Core, uploadUrl: string, bytes: Buffer): Promise<{ status: number; body: any }> {
  const req = Readable.from([bytes]) as unknown as IncomingMessage & { complete: boolean };
  Object.assign(req, { method: 'PUT', headers: { 'content-length': String(bytes.length) }, complete: false, setTimeout: () => req });
  req.on('end', () => void (req.complete = true));
  let status = 0;
  let text = '';
  const res = {
    headersSent: false,
    setHeader: () => {},
    writeHead(code: number) {
      status = code;
      res.headersSent = true;
    },
    end(chunk?: string) {
      text += chunk ?? '';
    },
    destroy: () => {},
  };
  expect(await handleFileUrl(core, req, res as unknown as ServerResponse, new URL(uploadUrl))).toBe(true);
  return { status, body: text ? JSON.parse(text) : undefined };
}

/**
 * allowed_actions is only worth reading if it is true: for each record kind, state and caller,
 * every act the record lists succeeds when tried, every act it does not list is refused, and a
 * denied act is refused as forbidden (docs/contract.md "Allowed actions").
 */

/**
 * The table of one record kind, opened for its describe: an in-process app whose primary owner
 * (the caller `admin`) makes the rooms named and admits every other caller, a new owner of the
 * name given, as a plain member of each. `rows` are every state read by every caller (it.each's
 * cases); `s`, `rooms` and `token` (each caller's owner token) are there from the tests and the
 * describe's own later beforeAll on.
 */
function actionsTable<S extends string, C extends string>(states: readonly S[], callers: Record<C, string | 'primary'>, roomNames: string[]) {
  const names = Object.keys(callers) as C[];
  const t = {
    callers: names,
    rows: states.flatMap((state) => names.map((caller) => [state, caller] as const)),
    s: undefined as unknown as TestApp,
    rooms: [] as string[],
    token: {} as Record<C, string>,
  };
  beforeAll(async () => {
    t.s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    for (const name of roomNames) t.rooms.push(await t.s.room(name));
    for (const caller of names) {
      if (callers[caller] === 'primary') {
        t.token[caller] = t.s.ownerToken;
        continue;
      }
      const o = await t.s.owner(callers[caller]);
      t.token[caller] = o.token;
      for (const room of t.rooms) expect((await t.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: o.owner_id, role: 'member' })).status).toBe(201);
    }
  });
  afterAll(async () => t.s?.stop());
  return t;
}

type Caller = 'admin' | 'assigneeOwner' | 'creator' | 'otherMember';

describe('allowed_actions: tasks', () => {
  type State = 'todo' | 'doing' | 'blocked' | 'done' | 'failed' | 'cancelled' | 'archived' | 'retried';
  const STATES: State[] = ['todo', 'doing', 'blocked', 'done', 'failed', 'cancelled', 'archived', 'retried'];
  // A cross-owner room (the admin's agent and Bea's agents; Bea lets others assign to hers), and
  // a room whose agents all belong to Bea, a plain member: she reassigns there, the admin does not.
  const table = actionsTable<State, Caller>(STATES, { admin: 'primary', assigneeOwner: 'Bea', creator: 'Cy', otherMember: 'Dee' }, ['Cross', 'Solo']);
  const CALLERS = table.callers;
  let s: TestApp;
  let room: string;
  let soloRoom: string;
  let worker: TestAgent;
  let spare: TestAgent;
  let soloWorker: TestAgent;
  let w: AppClient;
  let sw: AppClient;
  let token: Record<Caller, string>;

  beforeAll(async () => {
    ({ s, token } = table);
    [room = '', soloRoom = ''] = table.rooms;
    const bea = token.assigneeOwner;
    const mine = await s.agent('Mine');
    await s.join(room, mine.plate);
    worker = await s.agent('Worker', { token: bea });
    spare = await s.agent('Spare', { token: bea });
    await s.join(room, worker.plate, bea);
    await s.join(room, spare.plate, bea);
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bea)).status).toBe(200);
    w = await s.connect(worker.credential);
    soloWorker = await s.agent('Solo', { token: bea });
    await s.join(soloRoom, soloWorker.plate, bea);
    expect((await s.api('PUT', `/v1/rooms/${soloRoom}/consent`, { mode: 'trust_room' }, bea)).status).toBe(200);
    sw = await s.connect(soloWorker.credential);
  });

  let n = 0;

  /** A task created by Cy (the creator), assigned to Bea's agent, brought to `state`. */
  async function taskIn(state: State, where: 'cross' | 'solo' = 'cross'): Promise<{ room: string; id: string }> {
    const r = where === 'cross' ? room : soloRoom;
    const agent = where === 'cross' ? w : sw;
    const created = await s.api('POST', `/v1/rooms/${r}/tasks`, { title: `T${++n}`, definition_of_done: 'done', assignee: (where === 'cross' ? worker : soloWorker).handle }, token.creator);
    expect(created.status).toBe(201);
    const id = created.body.task_id as string;
    if (state === 'todo') return { room: r, id };
    if (state === 'cancelled') {
      expect((await s.api('POST', `/v1/rooms/${r}/tasks/${id}/cancel`, undefined, token.admin)).status).toBe(200);
      return { room: r, id };
    }
    await ok(agent, 'claim_task', { task_id: id });
    if (state === 'doing') return { room: r, id };
    if (state === 'blocked') await ok(agent, 'set_status', { task_id: id, status: 'blocked', reason: 'waits' });
    if (state === 'done' || state === 'archived') await ok(agent, 'complete_task', { task_id: id, status: 'done', handoff_notes: 'notes' });
    if (state === 'failed' || state === 'retried') await ok(agent, 'complete_task', { task_id: id, status: 'failed', reason: 'broke' });
    if (state === 'archived') expect((await s.api('POST', `/v1/rooms/${r}/tasks/${id}/archive`, undefined, token.admin)).status).toBe(200);
    if (state === 'retried') expect((await s.api('POST', `/v1/rooms/${r}/tasks/${id}/retry`, {}, token.admin)).status).toBe(201);
    return { room: r, id };
  }

  function attempt(t: { room: string; id: string }, action: TaskAction, tok: string): Promise<ApiResponse> {
    const base = `/v1/rooms/${t.room}/tasks/${t.id}`;
    const target = t.room === room ? spare.handle : soloWorker.handle;
    switch (action) {
      case 'edit':
        return s.api('PATCH', base, { title: 'edited' }, tok);
      case 'reassign':
        return s.api('POST', `${base}/assign`, { assignee: target }, tok);
      case 'retry':
        return s.api('POST', `${base}/retry`, {}, tok);
      default:
        return s.api('POST', `${base}/${action}`, undefined, tok);
    }
  }

  const read = async (t: { room: string; id: string }, tok: string) => {
    const r = await s.api('GET', `/v1/rooms/${t.room}/tasks/${t.id}`, undefined, tok);
    expect(r.status).toBe(200);
    return r.body as { status: string; assignee: string; title: string; archived: boolean; allowed_actions: TaskAction[]; denied_actions: Record<string, { code: string; message: string }> };
  };

  it('the board carries the same lists as the task record, for the owner asking (first: a short board)', async () => {
    const t = await taskIn('doing');
    for (const caller of CALLERS) {
      const b = await s.api('GET', `/v1/rooms/${room}/board`, undefined, token[caller]);
      const onBoard = b.body.lanes.flatMap((l: any) => l.tasks).find((x: any) => x.task_id === t.id);
      const rec = await read(t, token[caller]);
      expect(onBoard.allowed_actions).toEqual(rec.allowed_actions);
      expect(onBoard.denied_actions).toEqual(rec.denied_actions);
      // The room-wide reassign right on the board is the same rule as a reassignable task's (the window asks it, not one task).
      expect(b.body.allowed_actions.includes('reassign')).toBe(rec.allowed_actions.includes('reassign'));
      expect(b.body.denied_actions.reassign).toEqual(rec.denied_actions.reassign);
    }
  });

  it.each(table.rows)('a %s task, read by the %s: each listed act succeeds, each other is refused', async (state, caller) => {
    const tok = token[caller];
    const t = await taskIn(state);
    const rec = await read(t, tok);
    expect(rec.allowed_actions.every((a) => TASK_ACTIONS.includes(a))).toBe(true);
    for (const a of Object.keys(rec.denied_actions)) expect(rec.allowed_actions).not.toContain(a);
    // A refusal is a stable snake_case code the window keys on and the sentence it shows.
    for (const d of Object.values(rec.denied_actions)) expect(d).toEqual({ code: expect.stringMatching(/^[a-z]+(_[a-z]+)*$/), message: expect.stringMatching(/\S/) });
    // Refusals change nothing, so they are all tried on this one task.
    for (const action of TASK_ACTIONS.filter((a) => !rec.allowed_actions.includes(a))) {
      const before = await read(t, token.admin);
      const r = await attempt(t, action, tok);
      const after = await read(t, token.admin);
      if (r.status < 300) {
        // Only a repeat that changes nothing is answered without being offered (cancel a cancelled task, archive an archived one).
        expect([`${state}:${action}`]).toContainEqual(expect.stringMatching(/^(cancelled:cancel|archived:archive)$/));
        expect(after).toMatchObject({ status: before.status, assignee: before.assignee, title: before.title, archived: before.archived });
        continue;
      }
      expect(r.status, `${action} on a ${state} task by the ${caller}`).toBeGreaterThanOrEqual(400);
      expect(r.body.error.error_id).toMatch(/^err_/);
      if (rec.denied_actions[action]) expect(r.status, `${action} is denied: forbidden`).toBe(403);
      expect(after).toMatchObject({ status: before.status, assignee: before.assignee, title: before.title, archived: before.archived });
    }
    // Each listed act on a fresh task in the same state, whose list is the same.
    for (const action of rec.allowed_actions) {
      const fresh = await taskIn(state);
      expect((await read(fresh, tok)).allowed_actions).toEqual(rec.allowed_actions);
      const r = await attempt(fresh, action, tok);
      expect(r.status, `${action} on a ${state} task by the ${caller}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      // The answer is the record after the act, with the caller's new list.
      if (action !== 'retry') expect(Array.isArray(r.body.allowed_actions)).toBe(true);
    }
  });

  it('the rules as the record lists them: admin, assignee’s owner, creator, another member', async () => {
    const done = await taskIn('done');
    // The creator may archive its finished task (the board used to hide it).
    expect((await read(done, token.creator)).allowed_actions).toContain('archive');
    expect((await read(done, token.otherMember)).denied_actions.archive).toEqual({ code: 'admin_assignee_owner_or_creator_only', message: expect.stringMatching(/creator may archive/) });
    const doing = await taskIn('doing');
    expect((await read(doing, token.admin)).allowed_actions).toEqual(['edit', 'reassign', 'cancel', 'release']);
    expect((await read(doing, token.assigneeOwner)).allowed_actions).toEqual(['edit', 'cancel', 'release']);
    expect((await read(doing, token.assigneeOwner)).denied_actions).toEqual({ reassign: { code: 'cross_owner_admin_only', message: 'In a cross-owner room only a room admin may reassign.' } });
    expect((await read(doing, token.creator)).allowed_actions).toEqual(['edit']);
    expect((await read(doing, token.otherMember)).allowed_actions).toEqual([]);
  });

  it('in a room whose agents are one owner’s, that owner reassigns and retries, the admin does not', async () => {
    for (const caller of CALLERS) {
      const t = await taskIn('failed', 'solo');
      const rec = await read(t, token[caller]);
      expect(rec.allowed_actions.includes('reassign'), caller).toBe(caller === 'assigneeOwner');
      expect(rec.allowed_actions.includes('retry'), caller).toBe(caller === 'assigneeOwner');
      for (const action of ['reassign', 'retry'] as const) {
        const r = await attempt(await taskIn('failed', 'solo'), action, token[caller]);
        expect(r.status < 300, `${action} by the ${caller}`).toBe(rec.allowed_actions.includes(action));
      }
    }
  });

  it('the MCP task records do not carry the lists (the agent tools keep their shape)', async () => {
    const t = await taskIn('todo');
    const r = await ok(w, 'read_task', { task_id: t.id });
    expect(JSON.stringify(r)).not.toContain('allowed_actions');
  });
});

describe('allowed_actions: wakes', () => {
  type WakeCaller = 'admin' | 'agentOwner' | 'otherMember';
  type WakeState = 'held' | 'running' | 'failed' | 'retried' | 'handled';
  const table = actionsTable<WakeState, WakeCaller>(['held', 'running', 'failed', 'retried', 'handled'], { admin: 'primary', agentOwner: 'Bea', otherMember: 'Dee' }, ['Wakes']);
  let s: TestApp;
  let room: string;
  let worker: TestAgent;
  let token: Record<WakeCaller, string>;

  beforeAll(async () => {
    ({ s, token, rooms: [room = ''] } = table);
    worker = await s.agent('Worker', { token: token.agentOwner });
    await s.join(room, worker.plate, token.agentOwner);
  });

  let n = 0;
  /** A wake of Bea's agent in `state`, written as the dispatcher would (synchronously, so it does not pick it up between). */
  async function wakeIn(state: WakeState): Promise<string> {
    const db = s.running.core.db;
    const id = enqueueWake(db, { plate: worker.plate, roomId: room, trigger: 'mention', content: 'hi', eventKey: `aa:${++n}` })!;
    if (state === 'held') expect(holdWake(db, id, 'loop_guard')).toBe(true);
    else expect(markRunning(db, id, { target: 'runner', host: 'claude-code', instanceId: `inst-${n}`, contextVersion: 0 })).toBe(true);
    if (state === 'failed' || state === 'retried') expect(finishWake(db, id, 'failed', 'exit 1')).toBe(true);
    if (state === 'handled') expect(finishWake(db, id, 'handled', null)).toBe(true);
    if (state === 'retried') expect((await s.api('POST', `/v1/wakes/${id}/retry`, undefined, token.admin)).status).toBe(200);
    return id;
  }

  const read = async (id: string, tok: string) => {
    const r = await s.api('GET', `/v1/rooms/${room}/wakes?limit=500`, undefined, tok);
    expect(r.status).toBe(200);
    const w = r.body.wakes.find((x: any) => x.wake_id === id);
    expect(w).toBeTruthy();
    return w as { status: string; allowed_actions: WakeAction[]; denied_actions: Record<string, { code: string; message: string }> };
  };

  it.each(table.rows)('a %s wake, read by the %s: each listed act succeeds, each other is refused', async (state, caller) => {
    const tok = token[caller];
    const id = await wakeIn(state);
    const rec = await read(id, tok);
    for (const action of WAKE_ACTIONS.filter((a) => !rec.allowed_actions.includes(a))) {
      const before = (await read(id, token.admin)).status;
      const r = await s.api('POST', `/v1/wakes/${id}/${action}`, undefined, tok);
      expect(r.status, `${action} on a ${state} wake by the ${caller}`).toBeGreaterThanOrEqual(400);
      expect(r.body.error.error_id).toMatch(/^err_/);
      // A denied act is forbidden (or, for stop, the wake is not shown to exist: docs/wakes.md).
      if (rec.denied_actions[action]) expect([403, 404]).toContain(r.status);
      expect((await read(id, token.admin)).status).toBe(before);
    }
    for (const action of rec.allowed_actions) {
      const fresh = await wakeIn(state);
      expect((await read(fresh, tok)).allowed_actions).toEqual(rec.allowed_actions);
      const r = await s.api('POST', `/v1/wakes/${fresh}/${action}`, undefined, tok);
      expect(r.status, `${action} on a ${state} wake by the ${caller}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(Array.isArray(r.body.allowed_actions)).toBe(true);
    }
  });

  it('the lists as the wake log shows them', async () => {
    const held = await wakeIn('held');
    expect((await read(held, token.agentOwner)).allowed_actions).toEqual(['release', 'drop']);
    expect((await read(held, token.admin)).allowed_actions).toEqual(['release', 'drop']);
    expect((await read(held, token.otherMember))).toMatchObject({ allowed_actions: [], denied_actions: { release: { code: 'agent_owner_or_admin_only', message: expect.stringMatching(/owner or a room admin/) }, drop: { code: 'agent_owner_or_admin_only', message: expect.any(String) } } });
    // After the act, the record answered carries the new list: a released wake is queued, nothing to do.
    const r = await s.api('POST', `/v1/wakes/${held}/release`, undefined, token.agentOwner);
    expect(r.body).toMatchObject({ status: 'queued', allowed_actions: [], denied_actions: {} });
    const failed = await wakeIn('failed');
    expect((await read(failed, token.agentOwner)).allowed_actions).toEqual(['retry']);
    const retried = await s.api('POST', `/v1/wakes/${failed}/retry`, undefined, token.agentOwner);
    expect(retried.status).toBe(200);
    expect((await read(failed, token.agentOwner)).allowed_actions).toEqual([]);
    // The agent's own log carries them too.
    const mine = await s.api('GET', `/v1/agents/${worker.plate}/wakes`, undefined, token.agentOwner);
    expect(mine.body.wakes.every((w: any) => Array.isArray(w.allowed_actions))).toBe(true);
  });
});

describe('allowed_actions: files', () => {
  type FileCaller = 'admin' | 'author' | 'otherMember';
  type FileState = 'ready' | 'quarantined' | 'deleted' | 'deletedPathTaken';
  const table = actionsTable<FileState, FileCaller>(['ready', 'quarantined', 'deleted', 'deletedPathTaken'], { admin: 'primary', author: 'Bea', otherMember: 'Dee' }, ['Files']);
  let s: TestApp;
  let room: string;
  let token: Record<FileCaller, string>;

  beforeAll(async () => {
    ({ s, token, rooms: [room = ''] } = table);
  });

  let n = 0;
  async function share(path: string, complete: boolean): Promise<string> {
    const bytes = Buffer.from(`bytes of ${path}`);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const up = await s.api('POST', `/v1/rooms/${room}/files/uploads`, { filename: path, content_type: 'text/plain', size_bytes: bytes.length, sha256 }, token.author);
    expect(up.status).toBe(201);
    if (complete) {
      expect((await putUpload(s.core, up.body.upload_url, bytes)).status).toBe(200);
      expect((await s.api('POST', `/v1/rooms/${room}/files/${up.body.file_id}/complete`, {}, token.author)).status).toBe(200);
    }
    return up.body.file_id as string;
  }
  /** A file Bea wrote, in `state`; a deleted one was deleted by the admin (so Bea restores it as its author, not as its deleter). */
  async function fileIn(state: FileState): Promise<{ id: string; path: string }> {
    const path = `docs/f${++n}.txt`;
    const id = await share(path, state !== 'quarantined');
    if (state === 'deleted' || state === 'deletedPathTaken') expect((await s.api('DELETE', `/v1/rooms/${room}/files/${id}`, undefined, token.admin)).status).toBe(200);
    if (state === 'deletedPathTaken') await share(path, true);
    return { id, path };
  }
  const deleted = (state: FileState) => state === 'deleted' || state === 'deletedPathTaken';
  async function read(f: { id: string }, state: FileState, tok: string) {
    const r = deleted(state) ? await s.api('GET', `/v1/rooms/${room}/deleted-files`, undefined, tok) : await s.api('GET', `/v1/rooms/${room}/files?limit=200`, undefined, tok);
    expect(r.status).toBe(200);
    const rec = r.body.files.find((x: any) => x.file_id === f.id);
    expect(rec).toBeTruthy();
    return rec as { allowed_actions: string[]; denied_actions: Record<string, { code: string; message: string }> };
  }
  function attempt(f: { id: string }, action: string, tok: string): Promise<ApiResponse> {
    if (action === 'download') return s.api('GET', `/v1/rooms/${room}/files/${f.id}/download`, undefined, tok);
    if (action === 'delete') return s.api('DELETE', `/v1/rooms/${room}/files/${f.id}`, undefined, tok);
    return s.api('POST', `/v1/rooms/${room}/deleted-files/${f.id}/restore`, undefined, tok);
  }

  it.each(table.rows)('a %s file, read by the %s: each listed act succeeds, each other is refused', async (state, caller) => {
    const tok = token[caller];
    const f = await fileIn(state);
    const rec = await read(f, state, tok);
    const acts = deleted(state) ? DELETED_FILE_ACTIONS : FILE_ACTIONS;
    expect(rec.allowed_actions.every((a) => (acts as readonly string[]).includes(a))).toBe(true);
    for (const action of acts.filter((a) => !rec.allowed_actions.includes(a))) {
      const r = await attempt(f, action, tok);
      expect(r.status, `${action} on a ${state} file by the ${caller}`).toBeGreaterThanOrEqual(400);
      expect(r.body.error.error_id).toMatch(/^err_/);
      await read(f, state, token.admin); // still there, as it was
    }
    for (const action of rec.allowed_actions) {
      const fresh = await fileIn(state);
      expect((await read(fresh, state, tok)).allowed_actions).toEqual(rec.allowed_actions);
      const r = await attempt(fresh, action, tok);
      expect(r.status, `${action} on a ${state} file by the ${caller}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    }
  });

  it('the lists as the files view shows them', async () => {
    const f = await fileIn('ready');
    expect((await read(f, 'ready', token.author)).allowed_actions).toEqual(['download', 'delete']);
    expect(await read(f, 'ready', token.otherMember)).toMatchObject({ allowed_actions: ['download'], denied_actions: { delete: { code: 'author_owner_or_admin_only', message: expect.stringMatching(/author’s owner or a room admin/) } } });
    const q = await fileIn('quarantined');
    expect((await read(q, 'quarantined', token.author)).denied_actions.download).toEqual({ code: 'quarantined', message: expect.stringMatching(/quarantined/) });
    const taken = await fileIn('deletedPathTaken');
    expect((await read(taken, 'deletedPathTaken', token.admin)).denied_actions.restore).toEqual({ code: 'path_taken', message: expect.stringMatching(/exists again/) });
  });
});
