import type { Core } from '../core.js';
import type { ToolRegistry } from './registry.js';
import type { ToolContext } from './tool.js';
import type { AgentIdentity } from '../auth/callers.js';
import type { McpResourceHost } from '../../../shared/hosts.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { newErrorId, noteSuccess, recordEvidence } from '../evidence/store.js';
import { SPEC_TOOLS } from './spec-tools.js';
import { hasScope } from '../../../shared/scopes.js';
import type { ToolErrorBody } from '../../../shared/errors.js';
import { ulid } from '../util/ids.js';
import { answerLeavesThisTurn } from '../db/open.js';

export interface CallToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
  _meta: { pending_mentions: number };
  [k: string]: unknown;
}

export function docUrl(core: Core, code: string): string {
  return `${core.baseUrl}/docs/errors#${code}`;
}

/** The structured public error of a tool, its evidence stored under the error_id. */
export function toolError(
  core: Core,
  err: AppError,
  e: { tool?: string; args?: unknown; knownArgs?: ReadonlySet<string>; agent?: AgentIdentity; requestId?: string },
): ToolErrorBody {
  const errorId = newErrorId();
  recordEvidence(core.db, {
    errorId,
    surface: 'mcp',
    tool: e.tool,
    error: err,
    args: e.args,
    knownArgs: e.knownArgs,
    plate: e.agent?.plate,
    ownerId: e.agent?.ownerId,
    requestId: e.requestId,
    access: core.ports.evidenceAccess,
  });
  const body: ToolErrorBody = {
    code: err.code,
    message: err.message,
    http_status: err.httpStatus,
    error_id: errorId,
    retryable: err.retryable,
    doc_url: docUrl(core, err.code),
    next_action: 'diagnose_error',
  };
  if (err.reason) body.reason = err.reason;
  if (err.retryAfterMs !== undefined) body.retry_after_ms = err.retryAfterMs;
  if (err.details) body.details = err.details;
  return body;
}

function summarizeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(arguments)'}: ${i.message}`)
    .join('; ');
}

/** Marks tools/call arguments that were not a JSON object (see normalizeToolCalls in handler.ts). */
export const MALFORMED_ARGUMENTS = '\u0000malformed_arguments';

/** The caller's open mentions, for every answer's `_meta`; 0 when the store cannot say (the call reports that trouble itself). */
function pendingOf(core: Core, registry: ToolRegistry, plate: string): number {
  try {
    return registry.checks.pendingMentions(core, plate);
  } catch {
    return 0;
  }
}

/** One tools/call: scope first (before any work), then the rate limit, the schema, the handler. */
export async function callTool(
  core: Core,
  registry: ToolRegistry,
  agent: AgentIdentity,
  session: { id: string; host: McpResourceHost; toolCalls: number },
  name: string,
  args: unknown,
  /** `writeBehind`: the answer leaves over HTTP from this turn (mcp/handler.ts; db/open.ts answerLeavesThisTurn). */
  opts: { writeBehind?: boolean } = {},
): Promise<CallToolResult> {
  const tool = registry.get(name);
  let structured: Record<string, unknown>;
  let isError = false;
  let pending = 0;
  try {
    if (!tool) {
      throw new AppError('NOT_FOUND', 'unknown tool; call tools/list for the tools you may use', {
        reason: 'unknown_tool',
      });
    }
    if (!hasScope(agent.scopes, tool.scope)) {
      throw new AppError('SCOPE_MISSING', `${tool.name} needs the ${tool.scope} scope, which this agent does not hold`, {
        reason: `scope_${tool.scope.toLowerCase()}_missing`,
      });
    }
    core.rateLimiter.take(agent.plate);
    if (args && typeof args === 'object' && MALFORMED_ARGUMENTS in args) {
      throw new AppError('INVALID_ARGUMENT', `arguments must be a JSON object, not ${String((args as Record<string, unknown>)[MALFORMED_ARGUMENTS])}`);
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) throw new AppError('INVALID_ARGUMENT', `invalid arguments: ${summarizeIssues(parsed.error.issues)}`);
    if (tool.room) registry.checks.agentRoom(core, (parsed.data as { room: string }).room, agent.plate);
    session.toolCalls++;
    core.sessions.noteToolCall(agent.plate, session.id);
    const ctx: ToolContext = { core, agent, sessionId: session.id, host: session.host };
    // Over HTTP the answer leaves from this turn: for the handler's synchronous run, writes that start nothing may follow it.
    const result = await (opts.writeBehind ? answerLeavesThisTurn(core.db, () => tool.handler(ctx, parsed.data)) : tool.handler(ctx, parsed.data));
    // Acknowledged means on disk: the group commit's shared sync (instant after a read). The rest of
    // the answer is put together while the sync runs on the thread pool; durable() covers every write
    // the pending count below can see (nothing else runs between the two).
    const synced = core.durable();
    structured = (result && typeof result === 'object' && !Array.isArray(result) ? result : { result }) as Record<string, unknown>;
    pending = pendingOf(core, registry, agent.plate);
    await synced;
    noteSuccess(core.db, agent.plate, tool.name, args, registry.knownArgNames(tool.name));
  } catch (err) {
    const appErr = toAppError(err);
    if (appErr.code === 'INTERNAL') core.config.log(`internal error in ${name}: ${(err as Error)?.stack ?? String(err)}`);
    isError = true;
    structured = {
      error: toolError(core, appErr, {
        // A name the specification promises is kept (it is public); any other name may carry a secret.
        tool: tool?.name ?? (SPEC_TOOLS.has(name) ? name : 'unknown'),
        args,
        knownArgs: tool ? registry.knownArgNames(tool.name) : undefined,
        agent,
        // Minted for a failed call only: its evidence is the one place a request id is kept.
        requestId: `req_${ulid()}`,
      }),
    };
  }
  if (isError) pending = pendingOf(core, registry, agent.plate);
  // In the order the SDK's result schema gives its keys, so the fast path (handler.ts) sends the same bytes.
  const out: CallToolResult = {
    _meta: { pending_mentions: pending },
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
  if (isError) out.isError = true;
  return out;
}
