import type { z } from 'zod';
import type { Core } from '../core.js';
import { defineTool, type ToolAnnotations, type ToolContext, type ToolDef } from '../mcp/tool.js';
import { defineRoute, Status, type RoomAccess, type Route, type RouteContext } from '../http/router.js';
import type { ScopeName } from '../../../shared/scopes.js';
import type { Owner } from '../auth/callers.js';
import type { AnswerOf, Endpoint, ParamsOf } from '../../../shared/contracts/contract.js';
import { noContent as noContentSchema } from '../../../shared/contracts/contract.js';
import { AppError } from '../errors/app-error.js';

/**
 * One use case, declared once: its input and output schemas, who may call it, and a handler
 * that owns its transaction and its events. The MCP tool and the /v1 route are generated from
 * the declaration as thin adapters (parse, call, map); docs/architecture.md, "Use cases".
 */

/** Who calls, whatever the transport: an agent through MCP (its live instance is the session) or a human owner through /v1. */
export type Caller =
  | { kind: 'agent'; plate: string; ownerId: string; sessionId: string }
  /** `owner`: the signed-in owner's record, always there on /v1 (services that name a human caller themselves give only the id). */
  | { kind: 'human'; ownerId: string; owner?: Owner };

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
  /** What the calling program says it is, as it said it (a browser's User-Agent on /v1): for labels, never for a decision. */
  client?: string;
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
export interface RouteInputs<E extends Endpoint = Endpoint> {
  params: ParamsOf<E>;
  body: unknown;
  query: unknown;
}

/** A route's own checks that are not part of its wire face. */
interface RouteChecks {
  /** `'same'`: a present Origin must be this server (403 `cross_origin`): sign-in and sign-out, which change who the browser is. */
  origin?: 'same';
  /** With the contract's `auth: 'primary'`: the refusal's message for other owners, when it can say where to go instead. */
  notPrimary?: string;
}

/** The generated route: its contract (shared/contracts/) and how the request maps to the input. */
export interface RouteSide<E extends Endpoint, I, O> extends RouteChecks {
  /** The endpoint's wire face: method, path, body, query, answer and auth come from it. */
  contract: E;
  /** Builds the input from the request. Default: the query's and body's fields and the path's parameters (`room` from `:id`, `task_id` from `:taskId`). */
  input?: (req: RouteInputs<E>) => I;
  /** The success status chosen from the output (e.g. 200 for a replay, 201 for a creation); default the contract's (200). */
  status?: number | ((out: O) => number);
  /** The response body, when the route shows the output differently (default: as is): the contract's answer. */
  present?: (out: O, ctx: UseCaseContext & { input: I }) => AnswerOf<E>;
}

/** A use case's room rule (`UseCaseSpec.room`). */
export type UseCaseAccess = RoomAccess | 'record';

export interface UseCaseSpec<I extends z.ZodObject, O extends z.ZodType, E extends Endpoint> {
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
  /** Decides, writes in one transaction of its own and emits its events after commit; one that waits (on git, on the event loop) returns a promise. */
  handler: (ctx: UseCaseContext, input: z.output<I>) => z.input<O> | Promise<z.input<O>>;
  tool?: ToolSide<z.input<O>>;
  route?: RouteSide<E, z.output<I>, z.input<O>>;
}

/** What a human-only use case's handler reads: the path's parameters, the parsed body and query (as its contract declares them). */
export interface EndpointRequest<E extends Endpoint> {
  params: ParamsOf<E>;
  body: E['body'] extends z.ZodType ? z.output<E['body']> : Record<string, never>;
  query: E['query'] extends z.ZodType ? z.output<E['query']> : Record<string, never>;
}

/** The caller of a tool-only use case. */
export type AgentCaller = Extract<Caller, { kind: 'agent' }>;

/** A tool-only use case's caller: its tool is its one way in (the registry runs it for agents alone), so it is an agent. */
export function agentCaller(caller: Caller): AgentCaller {
  if (caller.kind !== 'agent') throw new AppError('INTERNAL', 'a tool-only use case was called without its tool');
  return caller;
}

/** A public endpoint's context (the contract's `auth: 'public'`): nobody signed in; the use case checks the credential it is given. */
export type PublicUseCaseContext = Omit<UseCaseContext, 'caller'> & { caller?: undefined };

/** A signed-in owner calling through /v1. */
export type HumanCaller = { kind: 'human'; ownerId: string; owner: Owner };

/** What a human-only use case's handler knows: the human calling, or nobody on a public endpoint. */
export type EndpointContext<E extends Endpoint> = E['auth'] extends 'public' ? PublicUseCaseContext : Omit<UseCaseContext, 'caller'> & { caller: HumanCaller };

/**
 * A use case only humans call, through /v1 (no tool): its contract gives its input, so it
 * declares no schema of its own; the handler reads the request as the contract parsed it.
 */
export interface EndpointUseCaseSpec<E extends Endpoint> {
  /**
   * None of a shared use case's schemas or tool: a declaration with them is the other form. Said
   * here so that overload resolution rejects this form before it types the handler's parameters
   * (TypeScript fixes a context-sensitive function's parameter types at the first overload it tries).
   */
  input?: never;
  output?: never;
  tool?: never;
  /** The human must be a member (or admin) of the room `:id` (404 / 403 otherwise); the handler gets it in `ctx.room`. */
  room?: RoomAccess;
  route: RouteChecks & {
    contract: E;
    /** The success status chosen from the answer; default the contract's (200). */
    status?: (out: AnswerOf<E>) => number;
  };
  /** Decides, writes in one transaction of its own and emits its events after commit. */
  handler: (ctx: EndpointContext<E>, req: EndpointRequest<E>) => AnswerOf<E> | Promise<AnswerOf<E>>;
}

/** A declared use case: its handler (for services and tests) and the adapters it yields. */
export interface UseCase<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
  room?: UseCaseAccess;
  run: (ctx: UseCaseContext, input: z.output<I>) => z.input<O> | Promise<z.input<O>>;
  /** The MCP tool (absent when agents may not call it). */
  tool: ToolDef;
  /** The /v1 route (absent when humans may not call it through /v1). */
  route: Route;
}

/** A declared human-only use case: its handler and its route. */
export interface EndpointUseCase<E extends Endpoint = Endpoint> {
  contract: E;
  room?: RoomAccess;
  run: (ctx: EndpointContext<E>, req: EndpointRequest<E>) => AnswerOf<E> | Promise<AnswerOf<E>>;
  route: Route;
}

/**
 * With AGENT_ROOMS_CHECK_ANSWERS=1 (the test suite, vitest.config.ts), every answer of a route
 * with a contract is checked against the contract's output schema, so a contract that says
 * something the server does not send fails the test that called it (docs/architecture.md "Contracts").
 */
const CHECK_ANSWERS = process.env.AGENT_ROOMS_CHECK_ANSWERS === '1';

function checkedAnswer(contract: Endpoint, shown: unknown): unknown {
  if (!CHECK_ANSWERS || contract.answer === 'stream') return shown;
  const r = (contract.answer === 'empty' ? noContentSchema : contract.output).safeParse(shown);
  if (!r.success) {
    const where = r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
    throw new AppError('INTERNAL', `${contract.method} ${contract.path} answered outside its contract: ${where.join('; ')}`);
  }
  return shown;
}

/** `taskId` → `task_id`: a path parameter's name as the input names it. */
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A route's input when it names no `input`: the query's and the body's fields, and the path's
 * parameters under the input's names (`:taskId` is `task_id`); `:id` is the room of a room use case
 * (`room`), and of a record's use case only the route's check (the handler gets it as `ctx.room`).
 */
function defaultInput(req: RouteInputs, inRoom: boolean): Record<string, unknown> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.params as Record<string, string>)) {
    if (k === 'id') {
      if (inRoom) params.room = v;
    } else params[snake(k)] = v;
  }
  return { ...(req.query as object), ...(req.body as object), ...params };
}

/** Sends a result as its status says: 200 as is, 204 for an empty answer, another status wrapped. */
function answer(status: number, shown: unknown): unknown {
  if (status === 204) return undefined;
  return status === 200 ? shown : new Status(status, shown);
}

/** Finishes a result that may be a promise (a handler that waits on git or the disk) with `f`. */
function then<T, R>(result: T | Promise<T>, f: (t: T) => R): R | Promise<R> {
  return result instanceof Promise ? result.then(f) : f(result);
}

function callerOf(ctx: RouteContext<string, 'owner', RoomAccess | undefined>): Caller | undefined {
  const owner = (ctx as { owner?: Owner }).owner;
  return owner ? { kind: 'human', ownerId: owner.owner_id, owner } : undefined;
}

function clientOf(ctx: RouteContext<string, 'owner', RoomAccess | undefined>): string | undefined {
  const ua = (ctx.req as { headers?: Record<string, unknown> } | undefined)?.headers?.['user-agent'];
  return typeof ua === 'string' ? ua : undefined;
}

function roomOf(ctx: RouteContext<string, 'owner', RoomAccess | undefined>): UseCaseRoom | undefined {
  const checked = (ctx as { room?: { id: string; role: RoomAccess } }).room;
  return checked ? { id: checked.id, role: checked.role } : undefined;
}

/** Declares a human-only use case from its contract (no tool: agents do not call it). */
export function defineUseCase<E extends Endpoint>(spec: EndpointUseCaseSpec<E>): EndpointUseCase<E>;
/** Declares a use case; `tool` and `route` are its generated adapters (each is there when its side is declared). */
export function defineUseCase<I extends z.ZodObject, O extends z.ZodType, E extends Endpoint = Endpoint>(
  spec: UseCaseSpec<I, O, E>,
): UseCase<I, O> & { tool: O extends z.ZodObject ? ToolDef : never };
export function defineUseCase(spec: UseCaseSpec<z.ZodObject, z.ZodType, Endpoint> | EndpointUseCaseSpec<Endpoint>): unknown {
  if (spec.input === undefined) return defineEndpointUseCase(spec);
  const inRoom = spec.room === 'member' || spec.room === 'admin';
  if (inRoom && !('room' in spec.input.shape)) throw new Error('a room use case names its room in its input (`room`)');
  if (spec.room === 'admin' && spec.tool) throw new Error('an admin-only use case has no tool: room admins are humans');
  const run = spec.handler;
  const out = { input: spec.input, output: spec.output, room: spec.room, run } as UseCase;
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
      handler: (ctx: ToolContext, args: Record<string, unknown>) => {
        const caller: Caller = { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId, sessionId: ctx.sessionId };
        const room = inRoom ? { id: (args as { room: string }).room } : undefined;
        return then(run({ core: ctx.core, caller, room }, args), (result) => (t.present ? t.present(result, ctx) : result)) as never;
      },
    });
  }
  if (spec.route) {
    const r = spec.route;
    const toInput = r.input ?? ((req: RouteInputs) => defaultInput(req, inRoom));
    // A record's route checks the human is in `:id`, as a room route does; the service matches the record to it.
    out.route = contractRoute(r.contract, r, spec.room === 'record' ? 'member' : spec.room, (uc, req) => {
      const input = toInput(req);
      return then(run(uc as UseCaseContext, input), (result) => {
        const status = typeof r.status === 'function' ? r.status(result) : r.status;
        return { status, shown: r.present ? r.present(result, { ...(uc as UseCaseContext), input }) : result };
      });
    });
  }
  return out;
}

function defineEndpointUseCase(spec: EndpointUseCaseSpec<Endpoint>): EndpointUseCase {
  const c = spec.route.contract;
  const route = contractRoute(c, spec.route, spec.room, (uc, req) =>
    then(spec.handler(uc, req), (shown) => ({ status: spec.route.status?.(shown), shown })),
  );
  return { contract: c, room: spec.room, run: spec.handler, route };
}

/**
 * The route of a contract: its method, path, auth, body and query from the contract, the room
 * check and the route's own checks; `handle` gives the answer and, when it chooses one, its
 * status (default the contract's: 200, or 204 for an empty answer).
 */
function contractRoute(
  c: Endpoint,
  checks: RouteChecks,
  room: RoomAccess | undefined,
  handle: (uc: EndpointContext<Endpoint>, req: EndpointRequest<Endpoint>) => { status?: number; shown: unknown } | Promise<{ status?: number; shown: unknown }>,
): Route {
  if (room && !c.path.includes('/:id')) throw new Error(`use case route ${c.method} ${c.path}: a room use case takes its room from :id`);
  return defineRoute({
    method: c.method,
    path: c.path,
    ...(c.auth ? { auth: c.auth as 'owner' } : {}),
    ...(checks.notPrimary ? { notPrimary: checks.notPrimary } : {}),
    ...(checks.origin ? { origin: checks.origin } : {}),
    room,
    body: c.body,
    query: c.query,
    handler: (ctx: RouteContext<string, 'owner', RoomAccess | undefined>, parsed: { body: unknown; query: unknown }) => {
      const uc = { core: ctx.core, caller: callerOf(ctx), room: roomOf(ctx), client: clientOf(ctx) } as EndpointContext<Endpoint>;
      const req = { params: ctx.params, body: parsed.body, query: parsed.query } as EndpointRequest<Endpoint>;
      return then(handle(uc, req), ({ status, shown }) => answer(status ?? c.status ?? (c.answer === 'empty' ? 204 : 200), checkedAnswer(c, shown)));
    },
  });
}
