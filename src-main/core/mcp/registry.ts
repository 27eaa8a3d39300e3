import { z } from 'zod';
import type { ToolAnnotations, ToolChecks, ToolDef } from './tool.js';
import { hasScope } from '../../../shared/scopes.js';

export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  outputSchema?: { type: 'object'; [k: string]: unknown };
  annotations?: ToolAnnotations;
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** Drops what zod writes that says nothing to a client: `$schema`, and integer bounds equal to JavaScript's safe range. */
function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
    out[k] = compactSchema(v);
  }
  return out;
}

/**
 * A failed call's `structuredContent` is `{error: {code, message, error_id, …}}` (with `isError`). The
 * official TypeScript client (1.x) checks structuredContent against the outputSchema even when isError is
 * set (modelcontextprotocol/typescript-sdk issue 1943), so every output schema admits this envelope beside
 * the tool's own result; otherwise that client throws instead of handing the error to the agent.
 */
const ERROR_RESULT = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message', 'error_id'] } },
};

/** The listed outputSchema: the result or the error envelope; item schemas a result repeats are written once, in the root's `$defs`. */
function outputSchema(result: Record<string, unknown>): { type: 'object'; [k: string]: unknown } {
  const { $defs, ...shape } = result;
  return { type: 'object', anyOf: [shape, ERROR_RESULT], ...($defs ? { $defs } : {}) };
}

/** Tool definitions are module constants: their listing is built once per process, not per core started. */
const listings = new WeakMap<ToolDef, ListedTool>();

function listedOf(def: ToolDef): ListedTool {
  let l = listings.get(def);
  if (l) return l;
  const schema = z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  const output = def.output
    ? (compactSchema(z.toJSONSchema(def.output, { io: 'output', unrepresentable: 'any', reused: 'ref' })) as Record<string, unknown>)
    : undefined;
  l = {
    name: def.name,
    ...(def.title ? { title: def.title } : {}),
    description: def.description,
    inputSchema: { ...schema, type: 'object' },
    ...(output ? { outputSchema: outputSchema(output) } : {}),
    // The title once, as Tool.title (not repeated in annotations.title): what a model reads has a 40 KB budget.
    ...(def.annotations ? { annotations: { ...def.annotations } } : {}),
  };
  listings.set(def, l);
  return l;
}

/** All tools, with their JSON schemas built once at start-up and their lists cached per scope mask. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDef>();
  private readonly listed = new Map<string, ListedTool>();
  private readonly knownArgs = new Map<string, ReadonlySet<string>>();
  private readonly byMask = new Map<number, ListedTool[]>();

  constructor(
    defs: ToolDef[],
    readonly checks: ToolChecks,
  ) {
    for (const def of defs) {
      if (def.room && !('room' in def.input.shape)) throw new Error(`tool ${def.name} is a room tool without a room argument`);
      if (this.tools.has(def.name)) throw new Error(`tool ${def.name} registered twice`);
      this.tools.set(def.name, def);
      this.listed.set(def.name, listedOf(def));
      this.knownArgs.set(def.name, new Set(Object.keys(def.input.shape)));
    }
  }

  get(name: string): ToolDef | undefined {
    return this.tools.get(name);
  }

  knownArgNames(name: string): ReadonlySet<string> {
    return this.knownArgs.get(name) ?? new Set();
  }

  /** The tools a caller with these scopes may see (advertised ones only). */
  list(mask: number): ListedTool[] {
    let l = this.byMask.get(mask);
    if (!l) {
      l = [...this.tools.values()]
        .filter((t) => t.advertised !== false && hasScope(mask, t.scope))
        .map((t) => this.listed.get(t.name)!);
      this.byMask.set(mask, l);
    }
    return l;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}
