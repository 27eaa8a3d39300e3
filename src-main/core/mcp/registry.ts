import { z } from 'zod';
import type { ToolAnnotations, ToolChecks, ToolDef } from './tool.js';
import { hasScope } from '../../../shared/scopes.js';
import { CORE_TOOLS, type ToolProfile } from './profiles.js';

export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  outputSchema?: { type: 'object'; [k: string]: unknown };
  annotations?: ToolAnnotations;
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** A copy of a JSON schema without the keys `drop` rejects, at every depth. */
function pruneSchema(node: unknown, drop: (k: string, v: unknown) => boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => pruneSchema(n, drop));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (!drop(k, v)) out[k] = pruneSchema(v, drop);
  return out;
}

/** What zod writes that says nothing to a client: `$schema`, and integer bounds equal to JavaScript's safe range. */
const saysNothing = (k: string, v: unknown) => k === '$schema' || (k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT);

function compactSchema(node: unknown): unknown {
  return pruneSchema(node, saysNothing);
}

/** Strings up to this length are identifiers, names and short fields: their length bound is no news to a model. */
const SHORT_STRING = 4096;
/** Lists allowed this long or longer are longer than any a model writes by hand: their bound is left out too. */
const LONG_LIST = 50;

/**
 * The input schema as a model reads it (docs/core.md, "Tool profiles"): besides compactSchema, the
 * length bounds of short strings (`minLength: 1`, `maxLength` up to SHORT_STRING) and of long lists are left out; the
 * server still enforces every bound (a too-long id is INVALID_ARGUMENT with an error_id). Bounds a
 * model can run into (a 64 KiB body, 20,000 characters of detail) stay listed.
 */
function modelInputSchema(node: unknown): unknown {
  return pruneSchema(
    listedForm(node),
    (k, v) =>
      saysNothing(k, v) ||
      (k === 'minLength' && v === 1) ||
      (k === 'maxLength' && typeof v === 'number' && v <= SHORT_STRING) ||
      (k === 'maxItems' && typeof v === 'number' && v >= LONG_LIST) ||
      // A count, seq or version is at least 0 or 1 by its name.
      (k === 'minimum' && (v === 0 || v === 1)),
  );
}

/**
 * A field may say how it is listed with zod's `.meta({ listed })` (docs/core.md, "Tool profiles"):
 * `false` leaves it out of the listing (an alias the server still accepts), a schema object lists that
 * narrower form instead (the server still accepts the whole field, e.g. to answer a wrong value with
 * its own error). Either way the input schema, not the listing, is what the server checks.
 */
function listedForm(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(listedForm);
  if (!node || typeof node !== 'object') return node;
  const { listed, ...rest } = node as Record<string, unknown>;
  if (listed && typeof listed === 'object') {
    const { description } = rest;
    return listedForm({ ...(listed as Record<string, unknown>), ...(description !== undefined ? { description } : {}) });
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (k === 'properties' && v && typeof v === 'object') {
      const props: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(v)) if ((field as { listed?: unknown })?.listed !== false) props[name] = listedForm(field);
      out[k] = props;
    } else out[k] = listedForm(v);
  }
  if (Array.isArray(out.required) && out.properties) out.required = out.required.filter((n) => n in (out.properties as object));
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
  const schema = modelInputSchema(z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any' })) as Record<string, unknown>;
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
  private readonly byMask = new Map<string, ListedTool[]>();

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
    for (const name of CORE_TOOLS) if (!this.tools.has(name)) throw new Error(`core profile names ${name}, which is not registered`);
  }

  get(name: string): ToolDef | undefined {
    return this.tools.get(name);
  }

  knownArgNames(name: string): ReadonlySet<string> {
    return this.knownArgs.get(name) ?? new Set();
  }

  /**
   * The tools a caller with these scopes sees in this profile (advertised ones only), always the same
   * objects in the same (registration) order: tools/list is byte-identical across sessions and restarts.
   */
  list(mask: number, profile: ToolProfile = 'full'): ListedTool[] {
    const key = `${profile}:${mask}`;
    let l = this.byMask.get(key);
    if (!l) {
      l = [...this.tools.values()]
        .filter((t) => t.advertised !== false && hasScope(mask, t.scope) && (profile === 'full' || CORE_TOOLS.has(t.name)))
        .map((t) => this.listed.get(t.name)!);
      this.byMask.set(key, l);
    }
    return l;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }
}
