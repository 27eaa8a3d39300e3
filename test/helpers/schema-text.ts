import { z } from 'zod';

/**
 * A zod schema as compact TypeScript-like text, for docs/contract.md (test/unit/contract-doc.test.ts):
 * `{ task_id: string; status: "todo" | "doing"; lease: { … } | null }`. The schema goes through zod's
 * own `z.toJSONSchema` (so a transform, a default or a coercion shows as what is sent or answered),
 * then the JSON Schema is written as a type. A record the `names` registry knows (the schemas
 * shared/ exports, by their export names) is written by its name wherever it is nested, and
 * `refs` says which names a text used, so the page can show each record once. Unnamed objects
 * nested deeper than `maxDepth` are `{ … }`; an enum of more than `maxEnum` values shows its first
 * ones and `…`; a line longer than `width` is broken one field per line.
 */

export type Names = z.core.$ZodRegistry<{ id: string }>;

export interface TextOptions {
  io: 'input' | 'output';
  names: Names;
  width?: number;
  maxDepth?: number;
  maxEnum?: number;
}

type Json = Record<string, unknown>;

/** A type as a tree, formatted once its width is known. */
type Node =
  | { kind: 'atom'; text: string }
  | { kind: 'object'; fields: Array<{ key: string; optional: boolean; type: Node }>; rest?: Node }
  | { kind: 'union'; items: Node[] }
  | { kind: 'intersection'; items: Node[] }
  | { kind: 'array'; item: Node }
  | { kind: 'tuple'; items: Node[] }
  | { kind: 'record'; key: Node; value: Node; partial: boolean };

const atom = (text: string): Node => ({ kind: 'atom', text });

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

class Writer {
  readonly refs = new Set<string>();
  private readonly defs: Record<string, Json>;

  constructor(
    root: Json,
    private readonly named: ReadonlySet<string>,
    private readonly maxDepth: number,
    private readonly maxEnum: number,
  ) {
    this.defs = (root.$defs as Record<string, Json> | undefined) ?? {};
  }

  /** The node of a schema; `depth` counts the unnamed objects around it. */
  node(s: Json | boolean | undefined, depth: number): Node {
    if (s === undefined || s === true) return atom('unknown');
    if (s === false) return atom('never');
    if (typeof s.$ref === 'string') return this.ref(s.$ref, depth);
    if ('const' in s) return atom(JSON.stringify(s.const));
    if (Array.isArray(s.enum)) return this.enumNode(s.enum as unknown[]);
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return union(((s.anyOf ?? s.oneOf) as Json[]).map((x) => this.node(x, depth)));
    if (Array.isArray(s.allOf)) return { kind: 'intersection', items: (s.allOf as Json[]).map((x) => this.node(x, depth)) };
    if (s.not && typeof s.not === 'object' && Object.keys(s.not).length === 0) return atom('never');
    if (Array.isArray(s.type)) return union((s.type as string[]).map((t) => this.node({ ...s, type: t }, depth)));
    switch (s.type) {
      case 'string':
        return atom('string');
      case 'integer':
      case 'number':
        return atom('number');
      case 'boolean':
        return atom('boolean');
      case 'null':
        return atom('null');
      case 'array':
        if (Array.isArray(s.prefixItems)) return { kind: 'tuple', items: (s.prefixItems as Json[]).map((x) => this.node(x, depth)) };
        return { kind: 'array', item: this.node(s.items as Json | undefined, depth) };
      case 'object':
        return this.objectNode(s, depth);
      default:
        return atom('unknown');
    }
  }

  private ref(ref: string, depth: number): Node {
    if (ref === '#') return atom('(itself)');
    const name = ref.replace(/^#\/\$defs\//, '');
    if (this.named.has(name)) {
      this.refs.add(name);
      return atom(name);
    }
    const def = this.defs[name];
    return def ? this.node(def, depth) : atom('unknown');
  }

  private enumNode(values: unknown[]): Node {
    const shown = values.length > this.maxEnum ? values.slice(0, this.maxEnum - 1) : values;
    const items = shown.map((v) => atom(JSON.stringify(v)));
    if (shown.length < values.length) items.push(atom('…'));
    return union(items);
  }

  private objectNode(s: Json, depth: number): Node {
    const props = (s.properties as Record<string, Json> | undefined) ?? {};
    const required = new Set((s.required as string[] | undefined) ?? []);
    const extra = s.additionalProperties as Json | boolean | undefined;
    const keys = s.propertyNames as Json | undefined;
    if (Object.keys(props).length === 0 && extra !== undefined && extra !== false) {
      // A record: its keys' schema and its values'; keys from an enum may each be absent unless all are required.
      const key = keys ? this.node(keys, depth) : atom('string');
      const partial = !!keys && Array.isArray(keys.enum) && !(keys.enum as unknown[]).every((k) => required.has(String(k)));
      return { kind: 'record', key, value: this.node(extra, depth), partial };
    }
    if (depth >= this.maxDepth && Object.keys(props).length > 0) return atom('{ … }');
    const fields = Object.entries(props).map(([key, type]) => ({ key, optional: !required.has(key), type: this.node(type, depth + 1) }));
    const rest = extra !== undefined && extra !== false ? this.node(extra, depth + 1) : undefined;
    return { kind: 'object', fields, ...(rest ? { rest } : {}) };
  }
}

function union(items: Node[]): Node {
  const flat = items.flatMap((n) => (n.kind === 'union' ? n.items : [n]));
  const seen = new Set<string>();
  const unique = flat.filter((n) => {
    const k = oneLine(n);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return unique.length === 1 ? unique[0]! : { kind: 'union', items: unique };
}

function keyText(key: string): string {
  return IDENT.test(key) ? key : JSON.stringify(key);
}

function wrapped(n: Node): string {
  const t = oneLine(n);
  return n.kind === 'union' || n.kind === 'intersection' ? `(${t})` : t;
}

function oneLine(n: Node): string {
  switch (n.kind) {
    case 'atom':
      return n.text;
    case 'union':
      return n.items.map(oneLine).join(' | ');
    case 'intersection':
      return n.items.map(wrapped).join(' & ');
    case 'array':
      return `${wrapped(n.item)}[]`;
    case 'tuple':
      return `[${n.items.map(oneLine).join(', ')}]`;
    case 'record': {
      const r = `Record<${oneLine(n.key)}, ${oneLine(n.value)}>`;
      return n.partial ? `Partial<${r}>` : r;
    }
    case 'object': {
      const parts = n.fields.map((f) => `${keyText(f.key)}${f.optional ? '?' : ''}: ${oneLine(f.type)}`);
      if (n.rest) parts.push(`[key: string]: ${oneLine(n.rest)}`);
      return parts.length ? `{ ${parts.join('; ')} }` : '{}';
    }
  }
}

/** The node as text starting at column `col` of a line indented by `indent`: broken where it would pass `width`. */
function format(n: Node, indent: string, col: number, width: number): string {
  const flat = oneLine(n);
  if (col + flat.length <= width) return flat;
  switch (n.kind) {
    case 'object': {
      const inner = indent + '  ';
      const lines = n.fields.map((f) => {
        const head = `${inner}${keyText(f.key)}${f.optional ? '?' : ''}:`;
        const t = f.type;
        // A field's long union of plain types: one member a line, each after `|`.
        if (t.kind === 'union' && head.length + 1 + oneLine(t).length + 1 > width && t.items.every((i) => i.kind === 'atom' || i.kind === 'array')) {
          return `${head}${t.items.map((i) => `\n${inner}  | ${oneLine(i)}`).join('')};`;
        }
        return `${head} ${format(t, inner, head.length + 1, width - 1)};`;
      });
      if (n.rest) lines.push(`${inner}[key: string]: ${format(n.rest, inner, inner.length + 15, width - 1)};`);
      return `{\n${lines.join('\n')}\n${indent}}`;
    }
    case 'union': {
      // `{ … } | null` keeps its object broken and the rest on its closing line.
      const parts: string[] = [];
      let c = col;
      for (const item of n.items) {
        const t = format(item, indent, c, width);
        parts.push(t);
        const last = t.split('\n').pop()!;
        c = (t.includes('\n') ? last.length : c + t.length) + 3;
      }
      return parts.join(' | ');
    }
    case 'array': {
      const t = n.item.kind === 'union' || n.item.kind === 'intersection' ? `(${format(n.item, indent, col + 1, width - 3)})` : format(n.item, indent, col, width - 2);
      return `${t}[]`;
    }
    case 'record': {
      const head = n.partial ? 'Partial<Record<' : 'Record<';
      const key = oneLine(n.key);
      const value = format(n.value, indent, col + head.length + key.length + 2, width - (n.partial ? 2 : 1));
      return `${head}${key}, ${value}>${n.partial ? '>' : ''}`;
    }
    default:
      return flat;
  }
}

/** The JSON Schema zod writes for `schema`, names from `names` becoming `$ref`s. */
function jsonOf(schema: z.ZodType, o: TextOptions): Json {
  return z.toJSONSchema(schema, { metadata: o.names, io: o.io, unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as Json;
}

/**
 * `schema` as type text. What it nests is written by name where it has one; the schema itself is
 * written out unless `byName` is set and it has a name (then the name alone). `prefix` is the text
 * before it on its first line (its width counts).
 */
export function schemaText(schema: z.ZodType, o: TextOptions & { byName?: boolean }, prefix = ''): { text: string; refs: string[] } {
  const json = jsonOf(schema, o);
  const names = new Set<string>();
  for (const id of Object.keys((json.$defs as Json | undefined) ?? {})) if (!id.startsWith('__')) names.add(id);
  const rootName = typeof json.$ref === 'string' ? json.$ref.replace(/^#\/\$defs\//, '') : undefined;
  if (rootName && names.has(rootName) && o.byName) return { text: rootName, refs: [rootName] };
  const w = new Writer(json, names, o.maxDepth ?? 3, o.maxEnum ?? 10);
  const root = rootName ? ((json.$defs as Record<string, Json>)[rootName] ?? json) : json;
  const text = format(w.node(root, 0), '', prefix.length, o.width ?? 100);
  if (rootName) w.refs.delete(rootName);
  return { text, refs: [...w.refs] };
}

/**
 * The names of the records shared/ exports: every exported object schema (and union of them),
 * by its export name; a name two modules export for different schemas is qualified by its module
 * (`tasks.foo`). `modules` pairs each module's file (for the page) with its exports.
 */
export function recordNames(modules: Array<[string, Record<string, unknown>]>): { names: Names; files: Map<string, string>; schemas: Map<string, z.ZodType> } {
  const names = z.registry<{ id: string }>();
  const files = new Map<string, string>();
  const schemas = new Map<string, z.ZodType>();
  for (const [file, exports] of modules) {
    for (const [exported, value] of Object.entries(exports)) {
      if (!(value instanceof z.ZodObject || value instanceof z.ZodUnion || value instanceof z.ZodDiscriminatedUnion)) continue;
      if (names.has(value)) continue;
      const base = file.replace(/^.*\//, '').replace(/\.ts$/, '');
      const id = files.has(exported) ? `${base}.${exported}` : exported;
      names.add(value, { id });
      files.set(id, file);
      schemas.set(id, value);
    }
  }
  return { names, files, schemas };
}
