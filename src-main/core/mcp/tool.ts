import { z } from 'zod';
import type { Core, CorePorts } from '../core.js';
import type { AgentIdentity } from '../auth/callers.js';
import type { ScopeName } from '../../../shared/scopes.js';
import type { McpResourceHost } from '../../../shared/hosts.js';

/** What a tool handler knows about its caller. */
export interface ToolContext {
  core: Core;
  agent: AgentIdentity;
  /** The MCP session, i.e. the live instance making the call. */
  sessionId: string;
  host: McpResourceHost;
}

/** The MCP tool annotations (hints, not guarantees, but hosts such as Codex gate approval on them). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler returns: the output schema's shape when it declares one. */
export type ToolResult<O> = O extends z.ZodObject ? z.input<O> : unknown;

export interface ToolDef<S extends z.ZodObject = z.ZodObject, O extends z.ZodObject | undefined = z.ZodObject | undefined> {
  name: string;
  scope: ScopeName;
  /** Written for a language model: when to use it and what it returns. */
  description: string;
  input: S;
  /**
   * The shape of a successful result (`structuredContent`), listed as the tool's `outputSchema`:
   * MCP clients (the official SDK among them) check every result against it, and the handler's
   * return type is checked against it at compile time.
   */
  output?: O;
  /** A short human-readable name that hosts show instead of `name`. */
  title?: string;
  /** MCP behaviour hints that hosts use to decide whether a call needs approval; true to what the tool does. */
  annotations?: ToolAnnotations;
  /**
   * `'member'`: the tool acts in the room named by its `room` argument, and the caller must be a member.
   * Checked once by the registry before the handler (NOT_FOUND, NOT_MEMBER), so handlers do not repeat it.
   */
  room?: 'member';
  /** Retired tools are callable but not listed. */
  advertised?: boolean;
  handler: (ctx: ToolContext, args: z.infer<S>) => ToolResult<O> | Promise<ToolResult<O>>;
}

/** Declares a tool with its input and output schemas beside it (type inference for the handler). */
export function defineTool<S extends z.ZodObject, O extends z.ZodObject | undefined = undefined>(def: ToolDef<S, O>): ToolDef {
  return def as unknown as ToolDef;
}

/** The tool registry's checks: the core's ports (core.ts CorePorts; mcp imports no capability). */
export type ToolChecks = Pick<CorePorts, 'agentRoom' | 'pendingMentions'>;
