// The UI stores' state transitions that need no server: each `it` sets the state it starts from.
// The loaders (load, loadMore, send, …) run against a real server in
// test/integration/ui-store-loaders.test.ts. Stores that read browser globals when imported
// (ui.ts: localStorage; attention.ts: navigator) are left out.
import { describe, it, expect, afterAll, beforeEach } from 'vitest';
import { post } from '../../src-renderer/src/api.js';
import { NO_FILTER, useBoard } from '../../src-renderer/src/stores/board.js';
import { useChat, type RoomChat } from '../../src-renderer/src/stores/chat.js';
import { useConnection } from '../../src-renderer/src/stores/connection.js';
import { handleOfPlate } from '../../src-renderer/src/stores/rooms.js';
import { phaseOf, sequencer, settle, type RoomResource } from '../../src-renderer/src/stores/room-resource.js';
import type { Members, Message } from '../../shared/api-types.js';

// The stores are modules: a file sharing this one's worker imports the same ones (docs/testing.md,
// "Files sharing a worker"). Leave them as the import made them (online, no rooms, no filters).
afterAll(() => {
  useBoard.setState(useBoard.getInitialState(), true);
  useChat.setState(useChat.getInitialState(), true);
  useConnection.setState(useConnection.getInitialState(), true);
});

describe('board store: filters', () => {
  beforeEach(() => useBoard.setState({ rooms: {}, filters: {} }));

  it('a room opens unfiltered', () => {
    expect(useBoard.getState().filters.room_a).toBeUndefined();
    expect(NO_FILTER).toEqual({ assignee: '', status: '' });
  });

  it('setFilter merges into the room’s filter and leaves other rooms alone', () => {
    const { setFilter } = useBoard.getState();
    setFilter('room_a', { assignee: 'AGT-1' });
    setFilter('room_a', { status: 'waiting' });
    setFilter('room_b', { status: 'done' });
    expect(useBoard.getState().filters).toEqual({
      room_a: { assignee: 'AGT-1', status: 'waiting' },
      room_b: { assignee: '', status: 'done' },
    });
    setFilter('room_a', { assignee: '' });
    expect(useBoard.getState().filters.room_a).toEqual({ assignee: '', status: 'waiting' });
  });

  it('asking for cancelled tasks of a board not loaded yet only records the filter (the first load asks for them)', () => {
    useBoard.getState().setFilter('room_a', { status: 'cancelled' });
    expect(useBoard.getState().rooms).toEqual({});
    expect(useBoard.getState().filters.room_a?.status).toBe('cancelled');
  });

  it('loadMore without a loaded board, and reorder of a task not in the lane, change nothing', async () => {
    await useBoard.getState().loadMore('room_a', 'done');
    expect(useBoard.getState().rooms).toEqual({});
    expect(await useBoard.getState().reorder('room_a', [], 'task_x', null)).toEqual({ ok: true, status: 200, data: null });
    expect(useBoard.getState().rooms).toEqual({});
  });
});

function msg(seq: number, room = 'room_a', body = `m${seq}`): Message {
  return {
    message_id: `msg_${seq}`,
    seq,
    room,
    sender: { kind: 'agent', plate: 'AGT-1', owner_id: 'own_1', handle: '@a', name: 'A' },
    body,
    mentions: [],
    parent_id: null,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

function chatOf(messages: Message[]): RoomChat {
  return { loading: false, data: { messages, hasMore: false, nextBeforeSeq: null, loadingOlder: false, liveCount: 0 } };
}

describe('chat store: live messages', () => {
  beforeEach(() => useChat.setState({ rooms: {} }));

  const seqs = () => useChat.getState().rooms.room_a?.data?.messages.map((m) => m.seq);

  it('ignores a message for a room whose chat is not open', () => {
    useChat.getState().receive(msg(1));
    expect(useChat.getState().rooms).toEqual({});
  });

  it('appends a newer message and counts it as live', () => {
    useChat.setState({ rooms: { room_a: chatOf([msg(1), msg(2)]) } });
    useChat.getState().receive(msg(3));
    expect(seqs()).toEqual([1, 2, 3]);
    expect(useChat.getState().rooms.room_a?.data?.liveCount).toBe(1);
  });

  it('keeps the order by seq when a message arrives out of order', () => {
    useChat.setState({ rooms: { room_a: chatOf([msg(1), msg(5)]) } });
    useChat.getState().receive(msg(3));
    useChat.getState().receive(msg(0));
    expect(seqs()).toEqual([0, 1, 3, 5]);
    expect(useChat.getState().rooms.room_a?.data?.liveCount).toBe(2);
  });

  it('drops a message it already holds (a live event racing the page that has it)', () => {
    const before = chatOf([msg(1), msg(2)]);
    useChat.setState({ rooms: { room_a: before } });
    useChat.getState().receive(msg(2, 'room_a', 'a copy'));
    expect(useChat.getState().rooms.room_a).toBe(before);
  });

  it('a message goes only to its own room', () => {
    useChat.setState({ rooms: { room_a: chatOf([msg(1)]), room_b: chatOf([msg(1, 'room_b')]) } });
    useChat.getState().receive(msg(2, 'room_b'));
    expect(seqs()).toEqual([1]);
    expect(useChat.getState().rooms.room_b?.data?.messages.map((m) => m.seq)).toEqual([1, 2]);
  });
});

describe('connection store', () => {
  beforeEach(() => useConnection.setState({ online: true, lostAt: null }));

  it('going offline records when; coming back clears it; repeats change nothing', () => {
    const t0 = Date.now();
    useConnection.getState().setOnline(false);
    const lost = useConnection.getState().lostAt;
    expect(useConnection.getState().online).toBe(false);
    expect(lost).toBeGreaterThanOrEqual(t0);
    useConnection.getState().setOnline(false);
    expect(useConnection.getState().lostAt).toBe(lost);
    useConnection.getState().setOnline(true);
    expect(useConnection.getState()).toMatchObject({ online: true, lostAt: null });
  });

  it('while offline a change is refused up front with words that say so (no request is made)', async () => {
    useConnection.getState().setOnline(false);
    const r = await post('/v1/rooms', { name: 'x' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.status).toBe(0);
      expect(r.error.code).toBe('OFFLINE');
      expect(r.error.message).toMatch(/cannot be reached/);
    }
  });
});

describe('store helpers', () => {
  it('handleOfPlate: the handle of a room’s agent; nothing for an unknown plate or no members', () => {
    const members: Members = {
      humans: [],
      agents: [
        { kind: 'agent', plate: 'AGT-1', name: 'A', handle: '@a(own)', owner: { owner_id: 'own', name: 'Own' }, revoked: false, presence: 'idle', allowed_actions: [], denied_actions: {} },
      ],
      instances: [],
    };
    expect(handleOfPlate(members, 'AGT-1')).toBe('@a(own)');
    expect(handleOfPlate(members, 'AGT-2')).toBeUndefined();
    expect(handleOfPlate(undefined, 'AGT-1')).toBeUndefined();
  });
});

describe('room resources: the one error policy and the sequence guard', () => {
  const notFound = { code: 'NOT_FOUND', message: 'room not found', error_id: 'err_1', status: 404 };
  const keep = (n: number[]) => n;

  it('a success replaces the data, clears the error and stamps loadedAt', () => {
    const held: RoomResource<number[]> = { data: [1], loading: true, error: notFound, loadedAt: 1 };
    const next = settle(held, { ok: true, status: 200, data: [2] }, keep);
    expect(next).toMatchObject({ data: [2], loading: false, error: undefined });
    expect(next.loadedAt).toBeGreaterThan(1);
  });

  it('a failure keeps the last good data and its time, and holds the API error with its error_id', () => {
    const held: RoomResource<number[]> = { data: [1], loading: true, loadedAt: 5 };
    expect(settle(held, { ok: false, status: 404, error: notFound }, keep)).toEqual({ data: [1], loading: false, error: notFound, loadedAt: 5 });
  });

  it('phaseOf: data first; an error only once no load is under way; else loading', () => {
    expect(phaseOf(undefined)).toBe('loading');
    expect(phaseOf({ loading: true })).toBe('loading');
    expect(phaseOf({ loading: true, error: notFound })).toBe('loading');
    expect(phaseOf({ loading: false, error: notFound })).toBe('error');
    expect(phaseOf({ loading: false, error: notFound, data: [] })).toBe('ready');
  });

  it('sequencer: only the latest request of a key counts; keys do not interfere', () => {
    const seq = sequencer();
    const a1 = seq.ask('a');
    const b1 = seq.ask('b');
    const a2 = seq.ask('a');
    expect(seq.isLatest('a', a1)).toBe(false);
    expect(seq.isLatest('a', a2)).toBe(true);
    expect(seq.isLatest('b', b1)).toBe(true);
  });
});
