import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { defineUseCase } from '../../src-main/core/usecase/define.js';
import { endpoint } from '../../shared/contracts/contract.js';
import { ToolRegistry } from '../../src-main/core/mcp/registry.js';
import type { ToolChecks } from '../../src-main/core/mcp/tool.js';
import { callTool } from '../../src-main/core/mcp/call.js';
import { prepareRoute, Status, type RouterChecks, type RouteContext, type RoomAccess } from '../../src-main/core/http/router.js';
import { AppError } from '../../src-main/core/errors/app-error.js';
import type { AgentIdentity, Owner } from '../../src-main/core/auth/callers.js';
import { ALL_SCOPES_MASK } from '../../shared/scopes.js';
import { ALL_TOOLS } from '../../src-main/core/capabilities.js';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';

/**
 * defineUseCase (docs/architecture.md, "Use cases"): one declaration yields an MCP tool and a
 * /v1 route that check the same fields with the same rules, run the same handler with a
 * caller-neutral context, and fail with the same errors. Both adapters run through the real
 * tool registry (`callTool`) and the router's preparation (`prepareRoute`), on the in-memory core.
 */

const ROOM = 'room_1';
const calls: Array<{ kind: string; room?: string; role?: string }> = [];

const bumpInput = z.object({ room: z.string().min(1).max(200), count: z.number().int().min(1).max(100), note: z.string().max(5).optional() });
const bumpOutput = z.object({ room: z.string(), count: z.number().int(), by: z.enum(['agent', 'human']) });
/** Its wire face, as a capability's shared/contracts/ file declares one: the body is the input without the room the path names. */
const bumpContract = endpoint({ method: 'POST', path: '/v1/rooms/:id/bump', summary: 'Bumps (test).', body: bumpInput.omit({ room: true }), output: bumpOutput });

const bump = defineUseCase({
  input: bumpInput,
  output: bumpOutput,
  room: 'member',
  handler: (ctx, input) => {
    calls.push({ kind: ctx.caller.kind, room: ctx.room?.id, role: ctx.room?.role });
    if (input.count > 10) throw new AppError('CONFLICT', 'too many at once', { reason: 'too_many', roomId: input.room });
    return { room: input.room, count: input.count, by: ctx.caller.kind };
  },
  tool: {
    name: 'bump_test',
    title: 'Bump (test)',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'A test use case.',
  },
  route: { contract: bumpContract, status: (out) => (out.count === 1 ? 201 : 200) },
});

const agent: AgentIdentity = { plate: 'AAA-111', agentId: 'agt_1', ownerId: 'own_1', scopes: ALL_SCOPES_MASK, credentialId: 'cred_1', deviceId: 'dev_1', exp: 0 };
const owner: Owner = { owner_id: 'own_1', name: 'Ann', handle: '@ann', plate_prefix: 'AAA', is_primary: true, allow_runners: true, created_at: '' };

/** The room checks: only ROOM exists, and both callers are in it (the human as admin). */
const toolChecks: ToolChecks = {
  agentRoom: (_core, roomId) => {
    if (roomId !== ROOM) throw new AppError('NOT_FOUND', 'room not found');
  },
  pendingMentions: () => 0,
};
const routerChecks: RouterChecks = {
  humanRoom: (_core, roomId, _ownerId, _need: RoomAccess) => {
    if (roomId !== ROOM) throw new AppError('NOT_FOUND', 'room not found');
    return { id: roomId, name: 'R', role: 'admin' };
  },
};

let mem: MemoryCore;
beforeAll(() => {
  mem = openMemoryCore();
});
afterAll(() => mem.close());

let registry: ToolRegistry | undefined;

/** Calls the generated tool as an agent: its result, or its error's code and message. */
async function viaTool(args: Record<string, unknown>) {
  registry ??= new ToolRegistry([...ALL_TOOLS, bump.tool], toolChecks);
  const r = await callTool(mem.core, registry, agent, { id: 'ses_1', host: 'generic', toolCalls: 0 }, 'bump_test', args);
  const s = r.structuredContent as { error?: { code: string; message: string; reason?: string } };
  return r.isError ? { error: { code: s.error!.code, message: s.error!.message, reason: s.error!.reason } } : { ok: s };
}

/** Calls the generated route as a human: status and body, or the error's code and message. */
function viaRoute(roomId: string, body: Record<string, unknown>) {
  const route = bump.route;
  const url = new URL(`http://127.0.0.1/v1/rooms/${roomId}/bump`);
  try {
    const { room, input } = prepareRoute(mem.core, routerChecks, route, { id: roomId }, owner, body, url, {} as IncomingMessage);
    const ctx = { core: mem.core, req: {} as IncomingMessage, res: {} as ServerResponse, url, params: { id: roomId }, owner, room } as RouteContext<string, 'owner', RoomAccess>;
    const out = route.handler(ctx, input);
    return out instanceof Status ? { status: out.status, ok: out.body } : { status: 200, ok: out };
  } catch (err) {
    const e = err as AppError;
    return { error: { code: e.code, message: e.message, reason: e.reason } };
  }
}

describe('defineUseCase', () => {
  it('yields a tool and a route from one declaration: the same input rules, the room check on both', () => {
    expect(bump.tool.name).toBe('bump_test');
    expect(bump.tool.input).toBe(bump.input);
    expect(bump.tool.room).toBe('member');
    expect(bump.route.method).toBe('POST');
    expect(bump.route.room).toBe('member');
    // The route's body is the input without `room`, which the path's :id gives.
    expect([...bump.route.knownArgs].sort()).toEqual(['count', 'note']);
  });

  it('runs one handler for both callers, with a caller-neutral context', async () => {
    calls.length = 0;
    expect(await viaTool({ room: ROOM, count: 2 })).toEqual({ ok: { room: ROOM, count: 2, by: 'agent' } });
    expect(viaRoute(ROOM, { count: 2 })).toEqual({ status: 200, ok: { room: ROOM, count: 2, by: 'human' } });
    expect(viaRoute(ROOM, { count: 1 })).toEqual({ status: 201, ok: { room: ROOM, count: 1, by: 'human' } });
    expect(calls).toEqual([
      { kind: 'agent', room: ROOM, role: undefined },
      { kind: 'human', room: ROOM, role: 'admin' },
      { kind: 'human', room: ROOM, role: 'admin' },
    ]);
  });

  it('refuses the same bad input on both sides, naming the same fields, before the handler runs', async () => {
    calls.length = 0;
    for (const bad of [{ count: 0 }, { count: 'x' }, { count: 2, note: 'too long' }, {}]) {
      const t = await viaTool({ room: ROOM, ...bad });
      const r = viaRoute(ROOM, bad);
      expect(t.error?.code).toBe('INVALID_ARGUMENT');
      expect(r.error?.code).toBe('INVALID_ARGUMENT');
      const fields = (m: string) => [...m.matchAll(/(\w+): /g)].map((x) => x[1]).filter((f) => f !== 'arguments' && f !== 'request');
      expect(fields(t.error!.message)).toEqual(fields(r.error!.message));
      expect(fields(t.error!.message).length).toBeGreaterThan(0);
    }
    expect(calls).toEqual([]);
  });

  it('fails with the same error from the handler, and the same room refusal', async () => {
    const t = await viaTool({ room: ROOM, count: 11 });
    const r = viaRoute(ROOM, { count: 11 });
    expect(t.error).toEqual({ code: 'CONFLICT', message: 'too many at once', reason: 'too_many' });
    expect(r.error).toEqual(t.error);
    calls.length = 0;
    const tr = await viaTool({ room: 'room_other', count: 2 });
    const rr = viaRoute('room_other', { count: 2 });
    expect(tr.error?.code).toBe('NOT_FOUND');
    expect(rr.error?.code).toBe('NOT_FOUND');
    expect(calls).toEqual([]);
  });

  it("room: 'record': the tool takes the record's id as is, the route checks :id and hands that room to the handler", async () => {
    // Which room each record is in: the handler's lookup, as a task use case's service does.
    const ITEMS: Record<string, string> = { item_1: ROOM, item_2: 'room_other' };
    const seen: Array<{ kind: string; room?: string }> = [];
    const touch = defineUseCase({
      input: z.object({ item_id: z.string().min(1).max(20) }),
      output: z.object({ item_id: z.string(), room: z.string() }),
      room: 'record',
      handler: (ctx, input) => {
        seen.push({ kind: ctx.caller.kind, room: ctx.room?.id });
        const itemRoom = ITEMS[input.item_id];
        if (!itemRoom || (ctx.room && ctx.room.id !== itemRoom)) throw new AppError('NOT_FOUND', 'item not found', { reason: 'item_not_found' });
        return { item_id: input.item_id, room: itemRoom };
      },
      tool: {
        name: 'touch_test',
        title: 'Touch (test)',
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        scope: 'WRITE',
        description: 'A test record use case.',
      },
      // No input mapping: the path's :itemId is the input's item_id, and :id only the route's room check.
      route: { contract: endpoint({ method: 'POST', path: '/v1/rooms/:id/items/:itemId/touch', summary: 'Touches (test).', output: z.object({ item_id: z.string(), room: z.string() }) }) },
    });
    // The tool's input is the record's id alone, with no room for the registry to check; the route checks the room :id.
    expect(touch.tool.room).toBeUndefined();
    expect(touch.tool.input).toBe(touch.input);
    expect(touch.route.room).toBe('member');
    const reg = new ToolRegistry([...ALL_TOOLS, touch.tool], toolChecks);
    const viaTouchTool = async (args: Record<string, unknown>) => {
      const r = await callTool(mem.core, reg, agent, { id: 'ses_1', host: 'generic', toolCalls: 0 }, 'touch_test', args);
      return r.structuredContent;
    };
    const viaTouchRoute = (roomId: string, itemId: string) => {
      const url = new URL(`http://127.0.0.1/v1/rooms/${roomId}/items/${itemId}/touch`);
      try {
        const { room, input } = prepareRoute(mem.core, routerChecks, touch.route, { id: roomId, itemId }, owner, {}, url, {} as IncomingMessage);
        const ctx = { core: mem.core, req: {} as IncomingMessage, res: {} as ServerResponse, url, params: { id: roomId, itemId }, owner, room } as RouteContext<string, 'owner', RoomAccess>;
        return { ok: touch.route.handler(ctx, input) };
      } catch (err) {
        return { error: (err as AppError).reason ?? (err as AppError).code };
      }
    };
    expect(await viaTouchTool({ item_id: 'item_1' })).toEqual({ item_id: 'item_1', room: ROOM });
    expect(viaTouchRoute(ROOM, 'item_1')).toEqual({ ok: { item_id: 'item_1', room: ROOM } });
    // A record of another room through this room's path is not found; a room the human is not in is refused before the handler.
    expect(viaTouchRoute(ROOM, 'item_2')).toEqual({ error: 'item_not_found' });
    const before = seen.length;
    expect(viaTouchRoute('room_other', 'item_2').error).toBe('NOT_FOUND');
    expect(seen.length).toBe(before);
    expect(seen.slice(0, 3)).toEqual([{ kind: 'agent', room: undefined }, { kind: 'human', room: ROOM }, { kind: 'human', room: ROOM }]);
  });

  it('refuses declarations the adapters could not honour', () => {
    const input = z.object({ room: z.string() });
    const output = z.object({});
    const tool = { name: 'x', title: 'X', description: 'x', scope: 'READ' as const, annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } };
    expect(() => defineUseCase({ input: z.object({}), output, room: 'member', handler: () => ({}) })).toThrow(/names its room/);
    expect(() => defineUseCase({ input, output, room: 'admin', handler: () => ({}), tool })).toThrow(/no tool/);
    expect(() => defineUseCase({ input, output, room: 'member', handler: () => ({}), route: { contract: endpoint({ method: 'GET', path: '/v1/rooms', summary: 'x', output }) } })).toThrow(/:id/);
  });
});
