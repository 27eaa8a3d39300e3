import type { z } from 'zod';
import type { Core } from '../core.js';
import { defineTool, type ToolAnnotations, type ToolContext, type ToolDef } from '../mcp/tool.js';
import { defineRoute, Status, type ParamNames, type RoomAccess, type Route, type RouteContext } from '../http/router.js';
import type { ScopeName } from '../../../shared/scopes.js';

/**
 * One use case, declared once: its input and output schemas, who may call it, and a handler
 * that owns its transaction and its events. The MCP tool and the /v1 route are generated from
 * the declaration as thin adapters (parse, call, map); docs/architecture.md, "Use cases".
 */

/** Who calls, whatever the transport: an agent through MCP (its live instance is the session) or a human owner through /v1. */
export type Caller = { kind: 'agent'; plate: string; ownerId: string; sessionId: string } | { kind: 'human'; ownerId: string };

/** The room a use case acts on, as the adapter's check found it: a human's role there; agents have none. */
export interface UseCaseRoom {
  id: string;
  role?: RoomAccess;
}

/** What a handler knows: the core, the caller and, for a room use case, the checked room. Nothing of HTTP or MCP. */
export interface UseCaseContext {
  core: Core;
  caller: Caller;
  room?: UseCaseRoom;
  /** The answer leaves over the network from this event-loop turn: writes that start nothing may follow it (db/open.ts `writeBehind`). */
  writeBehind?: boolean;
}

/** The generated tool: its MCP face, kept exactly as listed (`tools/list` is a contract). */
export interface ToolSide<O> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  scope: ScopeName;
  advertised?: boolean;
  /** The structured result, when the tool shows the use case's output differently (default: as is); `output` is then its schema. */
  present?: (out: O, ctx: ToolContext) => unknown;
  output?: z.ZodObject;
}

/** Where a route reads the use case's input: `params` from the path, the parsed `body` and `query`. */
export interface RouteInputs<P extends string> {
  params: { [K in ParamNames<P>]: string };
  body: unknown;
  query: unknown;
}

/** The generated route: method, path and how the request maps to the input. */
export interface RouteSide<P extends string, I, O> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: P;
  /**
   * The JSON body's schema. Default for POST, PUT and PATCH: the input without `room` (the path's
   * `:id` gives it), so the tool and the route check the same fields with the same rules.
   */
  body?: z.ZodType | null;
  /** The query string's schema (strings; coerce numbers). */
  query?: z.ZodType;
  /** Builds the input from the request. Default: the body's fields, with `room` from `:id`. */
  input?: (req: RouteInputs<P>) => I;
  /** The success status: a number (default 200) or chosen from the output (e.g. 200 for a replay, 201 for a creation). */
  status?: number | ((out: O) => number);
  /** The response body, when the route shows the output differently (default: as is). */
  present?: (out: O, ctx: UseCaseContext & { input: I }) => unknown;
}

/** A use case's room rule (`UseCaseSpec.room`). */
export type UseCaseAccess = RoomAccess | 'record';

export interface UseCaseSpec<I extends z.ZodObject, O extends z.ZodType, P extends string> {
  /** The input, caller-neutral: a room use case names its room in `room`. */
  input: I;
  /** The output: the tool's `outputSchema`, the route's response type. */
  output: O;
  /**
   * Authorization: `'member'`, the caller must be in the room `input.room` (an agent member through
   * MCP, a human member through /v1; NOT_FOUND/NOT_MEMBER or 404 otherwise); `'admin'`, a human
   * admin of it (no tool then). `'record'`: the input names one record of a room (a task's
   * `task_id`), not the room: the handler's service finds the record's room (one lookup) and checks
   * the caller is a member of it; the route also checks the human is a member of `:id` first (404)
   * and hands that room to the handler, whose service then refuses a record of another room as not
   * found. Which kinds of caller may call at all follows from the adapters: `tool` lets agents,
   * `route` lets human owners.
   */
  room?: UseCaseAccess;
  /** Decides, writes in one transaction of its own and emits its events after commit. */
  handler: (ctx: UseCaseContext, input: z.output<I>) => z.input<O>;
  tool?: ToolSide<z.input<O>>;
  route?: RouteSide<P, z.output<I>, z.input<O>>;
}

/** A declared use case: its handler (for services and tests) and the adapters it yields. */
export interface UseCase<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
  room?: UseCaseAccess;
  run: (ctx: UseCaseContext, input: z.output<I>) => z.input<O>;
  /** The MCP tool (absent when agents may not call it). */
  tool: ToolDef;
  /** The /v1 route (absent when humans may not call it through /v1). */
  route: Route;
}

function omitRoom(input: z.ZodObject): z.ZodObject {
  return 'room' in input.shape ? input.omit({ room: true }) : input;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Declares a use case; `tool` and `route` are its generated adapters (each is there when its side is declared). */
export function defineUseCase<I extends z.ZodObject, O extends z.ZodType, const P extends string = string>(
  spec: UseCaseSpec<I, O, P>,
): UseCase<I, O> & { tool: O extends z.ZodObject ? ToolDef : never } {
  const inRoom = spec.room === 'member' || spec.room === 'admin';
  if (inRoom && !('room' in spec.input.shape)) throw new Error('a room use case names its room in its input (`room`)');
  if (spec.room === 'admin' && spec.tool) throw new Error('an admin-only use case has no tool: room admins are humans');
  const run = spec.handler;
  const out = { input: spec.input, output: spec.output, room: spec.room, run } as UseCase<I, O>;
  if (spec.tool) {
    const t = spec.tool;
    out.tool = defineTool({
      name: t.name,
      title: t.title,
      annotations: t.annotations,
      scope: t.scope,
      ...(t.advertised === false ? { advertised: false } : {}),
      description: t.description,
      // The registry parses the input, then (room: 'member') checks the agent is in `room`; a record's room is the service's to check.
      ...(inRoom ? { room: 'member' as const } : {}),
      input: spec.input,
      output: t.output ?? (spec.output as unknown as z.ZodObject),
      handler: (ctx: ToolContext, args: z.output<I>) => {
        const caller: Caller = { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId, sessionId: ctx.sessionId };
        const room = inRoom ? { id: (args as { room: string }).room } : undefined;
        const result = run({ core: ctx.core, caller, room, writeBehind: ctx.writeBehind }, args);
        return (t.present ? t.present(result, ctx) : result) as never;
      },
    });
  }
  if (spec.route) {
    const r = spec.route;
    if (spec.room && !r.path.includes('/:id')) throw new Error(`use case route ${r.method} ${r.path}: a room use case takes its room from :id`);
    const body = r.body === null ? undefined : (r.body ?? (BODY_METHODS.has(r.method) ? omitRoom(spec.input) : undefined));
    const toInput =
      r.input ??
      ((req: RouteInputs<P>) =>
        ({ ...(req.body as object), ...(inRoom ? { room: (req.params as Record<string, string>).id } : {}) }) as z.output<I>);
    out.route = defineRoute({
      method: r.method,
      path: r.path,
      // A record's route checks the human is in `:id`, as a room route does; the service matches the record to it.
      room: spec.room === 'record' ? 'member' : spec.room,
      body,
      query: r.query,
      handler: (ctx: RouteContext<string, 'owner', RoomAccess | undefined>, parsed: { body: unknown; query: unknown }) => {
        const input = toInput({ params: ctx.params as RouteInputs<P>['params'], body: parsed.body, query: parsed.query });
        const checked = (ctx as { room?: { id: string; role: RoomAccess } }).room;
        const room = checked ? { id: checked.id, role: checked.role } : undefined;
        const uc: UseCaseContext = { core: ctx.core, caller: { kind: 'human', ownerId: ctx.owner.owner_id }, room };
        const result = run(uc, input);
        const status = typeof r.status === 'function' ? r.status(result) : (r.status ?? 200);
        const shown = r.present ? r.present(result, { ...uc, input }) : result;
        return status === 200 ? shown : new Status(status, shown);
      },
    });
  }
  return out as UseCase<I, O> & { tool: O extends z.ZodObject ? ToolDef : never };
}
