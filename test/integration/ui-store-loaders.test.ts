// The UI's stores, run in Node against the real routes in process (test/helpers/app.ts): api.ts is
// given the app's fetch (base URL, an owner's token) and every room resource loads what the core holds. The
// race is real too: a fetch wrapper holds one answer back until a newer request has landed.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { ok, type TestAgent } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { configureApi, type TokenSource } from '../../src-renderer/src/api.js';
import { useBoard } from '../../src-renderer/src/stores/board.js';
import { PAGE, useChat } from '../../src-renderer/src/stores/chat.js';
import { useDeletedFiles, useFiles } from '../../src-renderer/src/stores/files.js';
import { useReservations } from '../../src-renderer/src/stores/reservations.js';
import { useWorkspace } from '../../src-renderer/src/stores/workspace.js';
import { useWakes } from '../../src-renderer/src/stores/wakes.js';
import { useFeedback, useReports } from '../../src-renderer/src/stores/feedback.js';
import { useMembers, useTrust } from '../../src-renderer/src/stores/rooms.js';
import { useSession } from '../../src-renderer/src/stores/session.js';
import { phaseOf, refreshRoomResources } from '../../src-renderer/src/stores/room-resource.js';
import type { Board } from '../../shared/api-types.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/** A session token held in memory, as the page holds it in sessionStorage. */
function tokenOf(token: string | null): TokenSource {
  let t = token;
  return { get: () => t, set: (v) => void (t = v) };
}

/**
 * fetch, with one answer held back on request: the response has arrived from the server, but the
 * store sees it only when the test lets it go. `delivered` lists the paths in the order the store got them.
 */
function gatedFetch(fetch: (input: string, init: RequestInit) => Promise<Response>) {
  let hold: { match: (url: string) => boolean; gate: Promise<void>; body?: Promise<unknown> } | undefined;
  const delivered: string[] = [];
  const f = async (input: string, init: RequestInit) => {
    const res = await fetch(input, init);
    const h = hold?.match(input) ? hold : undefined;
    if (h) {
      hold = undefined;
      h.body = res.clone().json();
      await h.gate;
    }
    delivered.push(new URL(input).pathname + new URL(input).search);
    return res;
  };
  return {
    fetch: f,
    delivered,
    /** Holds the next answer whose URL matches; returns its release and (once it arrived) its body. */
    holdNext(match: (url: string) => boolean) {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const h: NonNullable<typeof hold> = { match, gate };
      hold = h;
      return { release, body: () => waitFor(() => h.body, 'the held answer to arrive') };
    },
  };
}

describe('UI store loaders against the real routes (in process)', () => {
  let s: TestApp;
  let agent: TestAgent;
  let c: AppClient;
  const net = gatedFetch((input, init) => s.fetch(input, init));

  const signIn = (token: string) => configureApi({ baseUrl: s.baseUrl, tokens: tokenOf(token), fetch: net.fetch });
  const newTask = (roomId: string, title: string) =>
    s.api('POST', `/v1/rooms/${roomId}/tasks`, { title, definition_of_done: 'it is done', assignee: agent.plate }).then((r) => {
      expect(r.status).toBe(201);
      return r.body.task_id as string;
    });
  /** Each test works in rooms of its own, so the tests run in any order. */
  const freshRoom = async (name: string) => {
    const r = await s.room(name);
    await s.join(r, agent.plate);
    return r;
  };
  const titles = (b: Board | undefined) => [...(b?.lanes.flatMap((l) => l.tasks) ?? []), ...(b?.done ?? [])].map((t) => t.title).sort();

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    agent = await s.agent('Loader');
    c = await s.connect(agent.credential);
  });
  afterAll(async () => {
    // The api and the stores are modules a file sharing this one's worker imports too (docs/testing.md,
    // "Files sharing a worker"): leave them as the import made them.
    configureApi({ baseUrl: '', tokens: tokenOf(null), fetch: (input, init) => fetch(input, init) });
    for (const store of [useBoard, useChat, useFiles, useDeletedFiles, useReservations, useWorkspace, useWakes, useFeedback, useReports, useMembers, useTrust, useSession]) {
      (store as { setState(s: unknown, replace: true): void }).setState(store.getInitialState(), true);
    }
    await s?.stop();
  });
  beforeEach(() => signIn(s.ownerToken));

  it('board: the first page of each lane, then "Show more" appends the next page of a lane', async () => {
    const room = await freshRoom('Board');
    // One lane shows at most 50 tasks on its first page (tasks/routes.ts): 55 leave a second page.
    const n = 55;
    for (let i = 0; i < n; i++) await newTask(room, `paged ${String(i).padStart(2, '0')}`);
    await useBoard.getState().load(room);
    const first = useBoard.getState().rooms[room]!;
    expect(first).toMatchObject({ loading: false, error: undefined });
    expect(first.loadedAt).toEqual(expect.any(Number));
    const lane = first.data!.lanes.find((l) => l.assignee === agent.plate)!;
    expect(lane.total).toBe(n);
    expect(lane.tasks.length).toBeLessThan(n);
    expect(lane.next_cursor).toEqual(expect.any(String));

    await useBoard.getState().loadMore(room, agent.plate);
    const more = useBoard.getState().rooms[room]!.data!.lanes.find((l) => l.assignee === agent.plate)!;
    expect(more.tasks.map((t) => t.title).sort()).toEqual(Array.from({ length: n }, (_, i) => `paged ${String(i).padStart(2, '0')}`));
    expect(more.next_cursor ?? null).toBeNull();
  });

  it('chat: the latest page, then older history by before_seq, merged in seq order', async () => {
    const other = await freshRoom('Chat');
    const n = PAGE + 5;
    const bodies = Array.from({ length: n }, (_, i) => `line ${i + 1}`);
    for (let i = 0; i < n; i += 25) {
      const sent = await Promise.all(bodies.slice(i, i + 25).map((body) => s.api('POST', `/v1/rooms/${other}/messages`, { body })));
      expect(sent.map((r) => r.status)).toEqual(sent.map(() => 201));
    }
    const newest = (await s.api('GET', `/v1/rooms/${other}/messages?limit=1`)).body.messages[0];
    await useChat.getState().loadLatest(other);
    const latest = useChat.getState().rooms[other]!.data!;
    expect(latest.messages).toHaveLength(PAGE);
    expect(latest.messages.at(-1)!.message_id).toBe(newest.message_id);
    expect(latest.hasMore).toBe(true);

    await useChat.getState().loadOlder(other);
    const all = useChat.getState().rooms[other]!.data!;
    const seqs = all.messages.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(n);
    expect(all.messages.map((m) => m.body).sort()).toEqual([...bodies].sort());
    expect(all).toMatchObject({ hasMore: false, loadingOlder: false });
  });

  it('files and deleted files: a file an agent wrote, deleted and restored through the stores', async () => {
    const room = await freshRoom('Files');
    await ok(c, 'write_file', { room, path: 'notes/plan.md', content: '# plan' });
    await useFiles.getState().load(room);
    const file = useFiles.getState().rooms[room]!.data!.find((f) => f.path === 'notes/plan.md')!;
    expect(file).toMatchObject({ path: 'notes/plan.md', size_bytes: 6 });

    expect((await useFiles.getState().remove(room, file.file_id)).ok).toBe(true);
    await waitFor(() => useDeletedFiles.getState().rooms[room]?.data?.some((d) => d.file_id === file.file_id), 'the deleted file listed');
    expect(useFiles.getState().rooms[room]!.data!.some((f) => f.file_id === file.file_id)).toBe(false);

    expect((await useDeletedFiles.getState().restore(room, file.file_id)).ok).toBe(true);
    expect(useDeletedFiles.getState().rooms[room]!.data).toEqual([]);
    expect(useFiles.getState().rooms[room]!.data!.map((f) => f.path)).toContain('notes/plan.md');
  });

  it('a live event about a room reloads the resources that follow it, and only for rooms they hold', async () => {
    const room = await freshRoom('Live');
    const unheld = await freshRoom('Never opened');
    await useFiles.getState().load(room);
    await ok(c, 'write_file', { room, path: 'notes/live.md', content: 'live' });
    // Same delay, scheduled first: a reload of the room nobody opened would start before the held room's.
    refreshRoomResources('files.changed', unheld);
    refreshRoomResources('board.changed', unheld);
    refreshRoomResources('files.changed', room);
    await waitFor(() => useFiles.getState().rooms[room]?.data?.some((f) => f.path === 'notes/live.md'), 'files reloaded after files.changed');
    expect(useFiles.getState().rooms[unheld]).toBeUndefined();
    expect(useBoard.getState().rooms[unheld]).toBeUndefined();
  });

  it('reservations, workspace, members and Trust load what the server holds', async () => {
    const room = await freshRoom('Reservations');
    await ok(c, 'reserve_paths', { room, paths: ['src/**'], reason: 'refactor' });
    await useReservations.getState().load(room);
    expect(useReservations.getState().rooms[room]!.data!.reservations).toEqual([expect.objectContaining({ pattern: 'src/**', plate: agent.plate, reason: 'refactor' })]);

    const saved = await useWorkspace.getState().save(room, { local_path: null, repo_url: 'https://example.com/acme/app.git', repo_branch: 'main' });
    expect(saved.ok).toBe(true);
    expect(useWorkspace.getState().rooms[room]!.data).toMatchObject({ repo_url: 'https://example.com/acme/app.git', repo_branch: 'main' });

    await Promise.all([useMembers.getState().load(room), useTrust.getState().load(room)]);
    expect(useMembers.getState().rooms[room]!.data!.agents.map((a) => a.plate)).toEqual([agent.plate]);
    expect(useMembers.getState().rooms[room]!.data!.humans).toEqual([expect.objectContaining({ name: 'Ada Owner', role: 'admin' })]);
    expect(useTrust.getState().rooms[room]!.data).toEqual([expect.objectContaining({ name: 'Ada Owner', agents: 1 })]);
  });

  it('wakes, task feedback and error reports read their typed pages', async () => {
    const room = await freshRoom('Wakes');
    // The owner mentions its agent: a wake is queued for it (no runner: it stays in the log).
    const handle = (await s.api('GET', `/v1/rooms/${room}/members`)).body.agents[0].handle as string;
    expect((await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'please look', mention_targets: [handle] })).status).toBe(201);
    await useWakes.getState().load(room);
    expect(useWakes.getState().rooms[room]!.data).toEqual(expect.arrayContaining([expect.objectContaining({ plate: agent.plate, trigger: 'mention' })]));

    const t = await ok(c, 'create_task', { room, title: 'reviewed', definition_of_done: 'reviewed', assignee: agent.plate });
    await ok(c, 'claim_task', { task_id: t.task_id });
    await ok(c, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'done' });
    await ok(c, 'submit_task_feedback', { room, task_id: t.task_id, outcome: 'clean' });
    await useFeedback.getState().load(room);
    const fb = useFeedback.getState().rooms[room]!.data!;
    expect(fb.room).toBe(room);
    expect(fb.task_feedback).toEqual([expect.objectContaining({ task_id: t.task_id, outcome: 'clean', plate: agent.plate })]);
    expect(fb.product_feedback).toEqual([]);

    await useReports.getState().load();
    expect(useReports.getState().reports).toMatchObject({ data: [], loading: false, error: undefined });
  });

  it('the sequence guard: a slow first answer for a room is dropped once a newer request has answered', async () => {
    const race = await freshRoom('Race');
    await newTask(race, 'first');
    const held = net.holdNext((url) => url.includes(`/rooms/${race}/board`));
    const slow = useBoard.getState().load(race);
    expect((await held.body()) as Board).toBeTruthy();
    expect(titles((await held.body()) as Board)).toEqual(['first']);

    await newTask(race, 'second');
    await useBoard.getState().load(race);
    expect(titles(useBoard.getState().rooms[race]!.data)).toEqual(['first', 'second']);

    held.release();
    await slow;
    // The old answer reached the store last, and was dropped.
    expect(net.delivered.filter((p) => p.includes(`/rooms/${race}/board`))).toHaveLength(2);
    expect(titles(useBoard.getState().rooms[race]!.data)).toEqual(['first', 'second']);
    expect(useBoard.getState().rooms[race]!.loading).toBe(false);
  });

  it('switching rooms fast: the first room answers last, the view of the second room shows the second room', async () => {
    const [a, b] = [await freshRoom('Room A'), await freshRoom('Room B')];
    await newTask(a, 'in A');
    await newTask(b, 'in B');
    const held = net.holdNext((url) => url.includes(`/rooms/${a}/board`));
    let current = a;
    const slow = useBoard.getState().load(current);
    await held.body();
    current = b;
    await useBoard.getState().load(current);
    held.release();
    await slow;
    expect(titles(useBoard.getState().rooms[current]!.data)).toEqual(['in B']);
    // Rooms are keyed: room A's late answer is room A's, and lands nowhere else.
    expect(titles(useBoard.getState().rooms[a]!.data)).toEqual(['in A']);
  });

  it('an error (the room is no longer ours: 404) lands in error with its error_id and keeps the data loaded before', async () => {
    const bob = await s.owner('Bob Member');
    const shared = await s.room('Shared');
    expect((await s.api('POST', `/v1/rooms/${shared}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    expect((await s.api('POST', `/v1/rooms/${shared}/messages`, { body: 'hello Bob' })).status).toBe(201);
    signIn(bob.token);
    await Promise.all([useChat.getState().loadLatest(shared), useFiles.getState().load(shared)]);
    expect(useChat.getState().rooms[shared]!.data!.messages.map((m) => m.body)).toEqual(['hello Bob']);

    expect((await s.api('POST', `/v1/rooms/${shared}/leave`, {}, bob.token)).status).toBe(200);
    await Promise.all([useChat.getState().loadLatest(shared), useFiles.getState().load(shared)]);
    for (const r of [useChat.getState().rooms[shared]!, useFiles.getState().rooms[shared]!]) {
      expect(r.loading).toBe(false);
      expect(r.error).toMatchObject({ status: 404, code: 'NOT_FOUND', error_id: expect.stringMatching(/\S/) });
      expect(phaseOf(r)).toBe('ready');
    }
    expect(useChat.getState().rooms[shared]!.data!.messages.map((m) => m.body)).toEqual(['hello Bob']);
    expect(useFiles.getState().rooms[shared]!.data).toEqual([]);
  });

  it('a room never loaded that fails shows the error; a 401 also signs the session out', async () => {
    const room = await freshRoom('Outsider');
    await useReservations.getState().load(room);
    const bob = await s.owner('Bob Outsider');
    signIn(bob.token);
    await useWorkspace.getState().load(room);
    const w = useWorkspace.getState().rooms[room]!;
    expect(w.data).toBeUndefined();
    expect(w.error).toMatchObject({ status: 404, error_id: expect.stringMatching(/\S/) });
    expect(phaseOf(w)).toBe('error');

    useSession.setState({ status: 'signed-in' });
    signIn('ars_not-a-session');
    await useReservations.getState().load(room);
    expect(useReservations.getState().rooms[room]!.error?.status).toBe(401);
    expect(useReservations.getState().rooms[room]!.data).toBeDefined();
    expect(useSession.getState().status).toBe('signed-out');
  });
});
