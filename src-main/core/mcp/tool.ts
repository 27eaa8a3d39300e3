import { z } from 'zod';
import type { Core } from '../context.js';
import type { AgentIdentity } from '../auth/identity.js';
import type { ScopeName } from '../../../shared/scopes.js';
import type { McpResourceHost } from '../../../shared/hosts.js';

/** What a tool handler knows about its caller. */
export interface ToolContext {
  core: Core;
  agent: AgentIdentity;
  /** The MCP session, i.e. the live instance making the call. */
  sessionId: string;
  host: McpResourceHost;
  requestId: string;
}

/** The MCP tool annotations (hints, not guarantees, but hosts such as Codex gate approval on them). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  scope: ScopeName;
  /** Written for a language model: when to use it and what it returns. */
  description: string;
  input: S;
  /** A short human-readable name that hosts show instead of `name`. */
  title?: string;
  /** MCP behaviour hints that hosts use to decide whether a call needs approval; true to what the tool does. */
  annotations?: ToolAnnotations;
  /** Retired tools are callable but not listed. */
  advertised?: boolean;
  handler: (ctx: ToolContext, args: z.infer<S>) => unknown | Promise<unknown>;
}

/** Declares a tool with its schema beside it (type inference for the handler). */
export function defineTool<S extends z.ZodObject>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}
