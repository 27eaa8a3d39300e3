/**
 * Reading what hosts keep in their own files, for the adapters (hosts/<id>.ts): lenient JSON
 * (comments, trailing commas, as the hosts themselves read it), bounded in size, never throwing.
 * Writing goes through connect's private writes (ConnectTools): `writePlanEntry` only hands them the plan.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { parseLenientObject, type JsonObject } from '../util/lenient-json.js';
import type { ConnectContext } from './adapter.js';

/** Larger than any settings file a user writes by hand; a bigger one is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;

export function readSettingsText(file: string): string | undefined {
  try {
    if (statSync(file).size > SETTINGS_MAX_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A settings file read as the hosts read it (comments and trailing commas allowed); undefined when absent or not an object. */
export function readJsonLoose(file: string): JsonObject | undefined {
  const text = readSettingsText(file);
  if (text === undefined) return undefined;
  const p = parseLenientObject(text);
  return 'error' in p ? undefined : p.value;
}

/** The user's home as the run or the shell sees it. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** `config[key]` as an object, made one when it is not (connect's writes into `mcpServers`, say). */
export function objectAt(c: JsonObject, key: string): JsonObject {
  const v = c[key];
  const m = v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
  c[key] = m;
  return m;
}

/** Sets the value at a key path (each step an object, made one when it is not). */
export function setAt(c: JsonObject, path: readonly string[], value: unknown): void {
  let at = c;
  for (const k of path.slice(0, -1)) at = objectAt(at, k);
  at[path[path.length - 1]!] = value;
}

/** The value at a key path, if every step is an object. */
export function getAt(c: JsonObject | undefined, path: readonly string[]): unknown {
  let at: unknown = c;
  for (const k of path) {
    if (!at || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as JsonObject)[k];
  }
  return at;
}

/** The credential of a server entry's Authorization header. */
export function bearerOf(entry: unknown): string | undefined {
  const h = (entry as { headers?: Record<string, unknown> } | undefined)?.headers;
  const v = h && (h.Authorization ?? h.authorization);
  return typeof v === 'string' ? /^Bearer\s+(\S+)$/i.exec(v)?.[1] : undefined;
}

/**
 * The room's servers of other agents that a host's own settings hold (what `agent-rooms connect`
 * wrote for them): a woken agent reaches the room as itself only, so a run leaves them out.
 */
export function isOtherRoomServer(name: string, server: string): boolean {
  return name.startsWith('agent-rooms-') && name !== server;
}

/** The value of the last `--output-format X` / `--output-format=X` (and `-o X` where the host takes it) in args. */
export function outputFormatIn(args: readonly string[], shortFlag: boolean): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--output-format' || (shortFlag && a === '-o')) value = args[i + 1];
    else if (a.startsWith('--output-format=')) value = a.slice('--output-format='.length);
  }
  return value;
}

/** A record at `v`, or undefined. */
export function recordOf(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Words of a refusal, bounded (the wake's reason keeps them). */
export function refusalWords(s: unknown, max = 300): string {
  const t = (typeof s === 'string' ? s : JSON.stringify(s ?? '')).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** How hosts phrase an approval rule's refusal. */
export const REFUSAL_WORDS = /\b(denied|deny|declined|rejected|reject|not allowed|disallowed|requires approval|approval policy|permission|refused|blocked by policy|policy)\b/i;

/** Writes the connect plan's one JSON entry into the host's settings file (a private write) and says so. */
export function writePlanEntry({ plan, tools }: Pick<ConnectContext, 'plan' | 'tools'>, file: string): void {
  const w = plan.writes[0]!.json!;
  tools.mergeJson(file, (c) => setAt(c, w.path, w.value));
  tools.out(`wrote ${plan.server} into ${file} (mode 600)`);
}
