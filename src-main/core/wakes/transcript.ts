import { StringDecoder } from 'node:string_decoder';
import { maskSecrets } from './mask.js';
import { adapterOfPreset, HOST_ADAPTERS, hostAdapter, type HostAdapter, type StreamFormat } from '../hosts/adapter.js';

/**
 * A run's transcript, read from the host CLI's machine-readable stdout as it arrives (docs/wakes.md
 * "Live runs"): what the model said, which tools it called and what they answered, what went wrong
 * and how the run ended, each as one short entry. Arguments and outputs are shortened and every
 * string from the stream is masked before it is shortened, so a secret cut at the edge is never
 * half shown. The stream is hostile: any bytes give entries or none, never an exception, and no
 * more memory than a line (4 MiB) or a document's tail (256 KiB).
 */

export type TranscriptKind = 'text' | 'tool_call' | 'tool_result' | 'error' | 'result';
export interface TranscriptEntry {
  kind: TranscriptKind;
  tool?: string;
  summary: string;
}

/** The longest summary; a shortened one ends with '…'. */
export const SUMMARY_MAX_CHARS = 400;

/** How a run's stdout reads: a native host's own events, `json-lines` read by the host's adapter, or plain text. */
export type TranscriptFormat = StreamFormat;

/** A line longer than this is no event of any host: it is dropped, as usage.ts drops it. */
const LINE_MAX = 4 * 1024 * 1024;
/** Gemini's `--output-format json` document is read from the last bytes of stdout only. */
const DOCUMENT_TAIL_MAX = 256 * 1024;
/** At most this many entries come of one line (or of the Gemini document). */
const ENTRIES_PER_LINE_MAX = 50;
/** Masking reads at most this much of any one string: a summary shows far less. */
const MASK_WINDOW = 16 * 1024;
/** Strings inside a tool's arguments, and tool names. */
const VALUE_MAX_CHARS = 160;
const TOOL_MAX_CHARS = 120;
/** Tool calls remembered for naming their results and denials. */
const TOOLS_REMEMBERED_MAX = 4096;
/** Arguments whose text is a file's content or a patch: shown as their length. */
const BULKY_KEYS = new Set(['content', 'contents', 'new_string', 'old_string', 'new_str', 'old_str', 'file_text', 'new_source', 'patch', 'diff', 'data', 'base64']);
/** Arguments that name what a tool acts on (a denial says it). */
const TARGET_KEYS = ['file_path', 'path', 'notebook_path', 'absolute_path', 'dir_path', 'url', 'pattern', 'command'] as const;

/**
 * Which transcript a runner's stdout gives: the shipped presets' machine-readable modes, or the
 * same modes named in a custom runner's args; anything else is read as plain text lines.
 */
export function transcriptFormatOf(host: string, preset: string | null, args: readonly string[]): TranscriptFormat {
  const byPreset = preset ? adapterOfPreset(preset) : undefined;
  if (byPreset) return byPreset.streamFormat(args, true);
  const own = hostAdapter(host)?.streamFormat(args, false) ?? 'text';
  if (own !== 'text') return own;
  // An own command of any host that runs another host's CLI in a mode it prints events in (`codex exec --json`).
  for (const h of HOST_ADAPTERS) {
    const f = h.recognizes?.(args);
    if (f) return f;
  }
  return 'text';
}

/** A remembered tool call: its name, and what it acts on (for a denial). */
interface ToolCall {
  name: string | undefined;
  target: string | undefined;
}

/** The entries one line gives, at most ENTRIES_PER_LINE_MAX. */
type Sink = TranscriptEntry[];

/**
 * Reads one run's stdout into transcript entries. Each host's events are mapped as their
 * pinned CLIs print them (docs/hosts.md names the versions):
 * - `claude -p --output-format stream-json --verbose`: assistant text and tool_use blocks,
 *   tool_result blocks (named by the tool_use they answer), `system` permission denials, the
 *   `result` event (its permission_denials not already reported);
 * - `codex exec --json`: item.started / item.completed of agent messages, commands, file
 *   changes, MCP tool calls, web searches and errors; turn.completed, turn.failed, error;
 * - `gemini --output-format json`: the one document at the end (tools used, the response, the
 *   error); `--output-format stream-json`: message, tool_use, tool_result, error, result lines;
 * - plain text: one entry per non-empty line.
 */
export class TranscriptScanner {
  private readonly secrets: readonly string[];
  private readonly decoder = new StringDecoder('utf8');
  /** The line being read; `dropping` once it outgrew LINE_MAX, until its newline. */
  private readonly line = new Pieces();
  private dropping = false;
  /** gemini-json: the last bytes of stdout. */
  private readonly tail = new Pieces();
  private readonly tools = new Map<string, ToolCall>();
  /** Claude tool calls whose denial is already an entry (a system event, then the result's list). */
  private readonly denied = new Set<string>();
  /** gemini-stream-json: the assistant's text deltas not yet an entry. */
  private pendingText = '';
  /** gemini-stream-json: the assistant's last text since a tool call, the run's answer. */
  private answer: string | undefined;
  private lastError: string | undefined;
  private ended = false;
  /** The host's words when its output showed the room's tools refused (an approval rule). */
  private refusal: string | undefined;

  /**
   * `host`: the run's host adapter and the room's server name, for what only the adapter knows of
   * its stream: `json-lines` events, and the room's tools refused (hosts/adapter.ts toolsRefused).
   */
  constructor(
    private readonly format: TranscriptFormat,
    secrets: readonly string[],
    private readonly host?: { adapter: HostAdapter | undefined; server: string },
  ) {
    this.secrets = secrets.filter((s) => typeof s === 'string' && s.length > 0);
  }

  /** The host's own words (masked) if its output showed a call of the room's tools refused by an approval rule. */
  toolsRefused(): string | undefined {
    return this.refusal;
  }

  /** Feed stdout bytes as they arrive; returns the entries completed by this chunk (in order). */
  push(chunk: Buffer | string): TranscriptEntry[] {
    const out: TranscriptEntry[] = [];
    if (this.ended) return out;
    try {
      const s = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
      if (s) this.feed(s, out);
    } catch {
      // Hostile input gives no entries, never an exception.
    }
    return out;
  }

  /** The stream ended: entries from what is left (a last line without newline; gemini-json's whole document). */
  end(): TranscriptEntry[] {
    const out: TranscriptEntry[] = [];
    if (this.ended) return out;
    try {
      const rest = this.decoder.end();
      if (rest) this.feed(rest, out);
      this.ended = true;
      if (this.format === 'gemini-json') {
        this.geminiDocument(this.tail.take().slice(-DOCUMENT_TAIL_MAX), out);
        return out;
      }
      const last = this.dropping ? '' : this.line.take();
      if (last) this.readLine(last, out);
      if (this.format === 'gemini-stream-json') {
        const es: Sink = [];
        this.flushText(es);
        out.push(...es);
      }
    } catch {
      // as in push
    }
    this.ended = true;
    return out;
  }

  private feed(s: string, out: TranscriptEntry[]): void {
    if (this.format === 'gemini-json') {
      this.tail.add(s);
      if (this.tail.length > DOCUMENT_TAIL_MAX + 64 * 1024) this.tail.keepLast(DOCUMENT_TAIL_MAX);
      return;
    }
    let from = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', from)) {
      const piece = s.slice(from, nl);
      from = nl + 1;
      if (this.dropping || this.line.length + piece.length > LINE_MAX) {
        this.dropping = false;
        this.line.clear();
        continue;
      }
      this.line.add(piece);
      this.readLine(this.line.take(), out);
    }
    if (from >= s.length || this.dropping) return;
    const rest = from === 0 ? s : s.slice(from);
    if (this.line.length + rest.length > LINE_MAX) {
      this.dropping = true;
      this.line.clear();
    } else this.line.add(rest);
  }

  private readLine(raw: string, out: TranscriptEntry[]): void {
    const es: Sink = [];
    try {
      if (this.format === 'text') {
        const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        if (t.trim()) this.emit(es, { kind: 'text', summary: this.clean(t) });
        const adapter = this.host?.adapter;
        if (t.trim() && this.refusal === undefined && adapter?.toolsRefusedLine) {
          const words = adapter.toolsRefusedLine(t, this.host!.server);
          if (words !== undefined) this.refusal = this.clean(words) || 'the host refused the call';
        }
      } else {
        const t = raw.trim();
        if (!t.startsWith('{')) return;
        const o: unknown = JSON.parse(t);
        if (!isRecord(o)) return;
        this.hostEvent(o, es);
        if (this.format === 'claude-stream-json') this.claudeEvent(o, es);
        else if (this.format === 'codex-json') this.codexEvent(o, es);
        else if (this.format === 'gemini-stream-json') this.geminiEvent(o, es);
      }
    } catch {
      // Not JSON, or JSON nested past what the parser takes: no entries of this line.
    } finally {
      out.push(...es);
    }
  }

  /** What the host's adapter reads of one event: a refusal of the room's tools, and (`json-lines`) its entries. */
  private hostEvent(o: Record<string, unknown>, es: Sink): void {
    const adapter = this.host?.adapter;
    if (!adapter) return;
    if (this.refusal === undefined && adapter.toolsRefused) {
      const words = adapter.toolsRefused(o, this.host!.server);
      if (words !== undefined) this.refusal = this.clean(words) || 'the host refused the call';
    }
    if (this.format === 'json-lines' && adapter.transcriptEvent) {
      for (const e of adapter.transcriptEvent(o).slice(0, ENTRIES_PER_LINE_MAX)) {
        this.emit(es, { kind: e.kind, ...(e.tool !== undefined ? { tool: this.toolName(e.tool) } : {}), summary: this.clean(e.summary) });
      }
    }
  }

  /** Adds an entry unless the line gave its share; an error repeated at once is one entry. */
  private emit(es: Sink, e: TranscriptEntry): void {
    if (es.length >= ENTRIES_PER_LINE_MAX) return;
    if (e.kind === 'error' && e.summary === this.lastError) return;
    this.lastError = e.kind === 'error' ? e.summary : undefined;
    es.push(e.tool === undefined ? { kind: e.kind, summary: e.summary } : e);
  }

  // ------------------------------------------------------------------ Claude Code stream-json

  private claudeEvent(o: Record<string, unknown>, es: Sink): void {
    switch (o.type) {
      case 'assistant': {
        const content = recordAt(o.message)?.content;
        if (!Array.isArray(content)) return;
        // An API failure comes as a synthetic assistant message that carries `error`.
        const failed = o.error !== undefined || o.is_api_error_message === true;
        for (let i = 0; i < content.length && es.length < ENTRIES_PER_LINE_MAX; i++) {
          const c = recordAt(content[i]);
          if (c?.type === 'text' && typeof c.text === 'string') {
            const summary = this.clean(c.text);
            if (summary) this.emit(es, { kind: failed ? 'error' : 'text', summary });
          } else if (c?.type === 'tool_use') {
            const call = this.remember(c.id, c.name, c.input);
            this.emit(es, { kind: 'tool_call', tool: call.name, summary: this.argumentsSummary(c.input) });
          }
        }
        return;
      }
      case 'user': {
        const content = recordAt(o.message)?.content;
        if (!Array.isArray(content)) return;
        for (let i = 0; i < content.length && es.length < ENTRIES_PER_LINE_MAX; i++) {
          const c = recordAt(content[i]);
          if (c?.type !== 'tool_result') continue;
          const tool = typeof c.tool_use_id === 'string' ? this.tools.get(c.tool_use_id)?.name : undefined;
          this.emit(es, { kind: 'tool_result', tool, summary: this.withPrefix(c.is_error === true ? 'error: ' : '', blocksText(c.content)) });
        }
        return;
      }
      case 'system': {
        const subtype = typeof o.subtype === 'string' ? o.subtype : '';
        if (subtype === 'init') {
          // A room's server that did not connect is why a run cannot reply: say so.
          const servers = Array.isArray(o.mcp_servers) ? o.mcp_servers.slice(0, ENTRIES_PER_LINE_MAX) : [];
          for (const s of servers) {
            const r = recordAt(s);
            if (r && typeof r.status === 'string' && r.status !== 'connected' && r.status !== 'pending') {
              this.emit(es, { kind: 'error', summary: this.clean(`MCP server ${String(r.name)}: ${r.status}`) });
            }
          }
        } else if (/permission/i.test(subtype)) {
          const id = typeof o.tool_use_id === 'string' ? o.tool_use_id : undefined;
          const call = id ? this.tools.get(id) : undefined;
          if (id) this.rememberDenial(id);
          this.emit(es, { kind: 'error', tool: call?.name ?? this.toolName(o.tool_name), summary: this.denialSummary(call?.name ?? o.tool_name, call?.target, o.message) });
        } else if (/error|fail/i.test(subtype)) {
          this.emit(es, { kind: 'error', summary: this.clean(errorText(o.error ?? o.message ?? subtype)) });
        }
        return;
      }
      case 'result': {
        const denials = Array.isArray(o.permission_denials) ? o.permission_denials.slice(0, ENTRIES_PER_LINE_MAX - 1) : [];
        for (const d of denials) {
          const r = recordAt(d);
          if (!r || (typeof r.tool_use_id === 'string' && this.denied.has(r.tool_use_id))) continue;
          this.emit(es, { kind: 'error', tool: this.toolName(r.tool_name), summary: this.denialSummary(r.tool_name, this.targetOf(r.tool_input), undefined) });
        }
        const failed = o.is_error === true;
        const errors = Array.isArray(o.errors) ? o.errors.filter((e) => typeof e === 'string').slice(0, 10).join('; ') : '';
        const text = typeof o.result === 'string' && o.result.trim() ? o.result : errors || (typeof o.subtype === 'string' ? o.subtype : 'done');
        this.emit(es, { kind: 'result', summary: this.withPrefix(failed ? 'error: ' : '', text) });
        return;
      }
    }
  }

  private rememberDenial(id: string): void {
    if (this.denied.size >= TOOLS_REMEMBERED_MAX) this.denied.delete(this.denied.values().next().value!);
    this.denied.add(id);
  }

  private denialSummary(tool: unknown, target: string | undefined, message: unknown): string {
    const name = this.toolName(tool) ?? 'a tool';
    if (target) return shorten(`permission denied: ${name} ${target}`, SUMMARY_MAX_CHARS, false);
    return this.withPrefix(`permission denied: ${name}`, typeof message === 'string' && message ? `: ${message}` : '');
  }

  // ------------------------------------------------------------------ codex exec --json

  private codexEvent(o: Record<string, unknown>, es: Sink): void {
    const type = o.type;
    if (type === 'item.started' || type === 'item.updated' || type === 'item.completed') {
      const item = recordAt(o.item);
      if (item) this.codexItem(type.slice('item.'.length), item, es);
    } else if (type === 'turn.completed') {
      this.emit(es, { kind: 'result', summary: usageSummary(recordAt(o.usage)) });
    } else if (type === 'turn.failed') {
      this.emit(es, { kind: 'error', summary: this.clean(errorText(o.error)) });
    } else if (type === 'error') {
      this.emit(es, { kind: 'error', summary: this.clean(errorText(o.message ?? o.error)) });
    }
  }

  private codexItem(phase: string, item: Record<string, unknown>, es: Sink): void {
    const failed = item.status === 'failed' || item.status === 'declined';
    switch (item.type) {
      case 'agent_message':
        if (phase === 'completed' && typeof item.text === 'string') {
          const summary = this.clean(item.text);
          if (summary) this.emit(es, { kind: 'text', summary });
        }
        return;
      case 'command_execution': {
        if (phase === 'started') this.emit(es, { kind: 'tool_call', tool: 'shell', summary: this.clean(stringOf(item.command)) });
        if (phase !== 'completed') return;
        const code = count(item.exit_code);
        const head = item.status === 'declined' ? 'declined' : code !== null ? `exit ${code}` : stringOf(item.status) || 'done';
        const output = typeof item.aggregated_output === 'string' ? item.aggregated_output : '';
        this.emit(es, { kind: 'tool_result', tool: 'shell', summary: this.withPrefix(`${failed ? 'error: ' : ''}${head}`, output.trim() ? `: ${output}` : '') });
        return;
      }
      case 'file_change': {
        if (phase !== 'completed') return;
        const changes = Array.isArray(item.changes) ? item.changes : [];
        const text = joinBounded(changes.slice(0, ENTRIES_PER_LINE_MAX).map((c) => `${stringOf(recordAt(c)?.kind) || 'change'} ${stringOf(recordAt(c)?.path)}`), ', ');
        this.emit(es, { kind: 'tool_result', tool: 'apply_patch', summary: this.withPrefix(failed ? 'error: ' : '', text || stringOf(item.status)) });
        return;
      }
      case 'mcp_tool_call': {
        const tool = this.toolName(`${stringOf(item.server)}.${stringOf(item.tool)}`);
        if (phase === 'started') this.emit(es, { kind: 'tool_call', tool, summary: this.argumentsSummary(item.arguments) });
        if (phase !== 'completed') return;
        const result = recordAt(item.result);
        const error = recordAt(item.error)?.message ?? item.error;
        const text = failed && error ? errorText(error) : blocksText(result?.content ?? result?.structured_content ?? '');
        this.emit(es, { kind: 'tool_result', tool, summary: this.withPrefix(failed ? 'error: ' : '', text) });
        return;
      }
      case 'web_search':
        if (phase === 'completed') this.emit(es, { kind: 'tool_call', tool: 'web_search', summary: this.clean(stringOf(item.query ?? recordAt(item.action)?.query)) });
        return;
      case 'todo_list': {
        if (phase === 'completed' || !Array.isArray(item.items)) return;
        const steps = item.items.slice(0, ENTRIES_PER_LINE_MAX).map((i) => `${recordAt(i)?.completed === true ? '[x]' : '[ ]'} ${stringOf(recordAt(i)?.text)}`);
        this.emit(es, { kind: 'text', summary: this.clean(`plan: ${joinBounded(steps, '; ')}`) });
        return;
      }
      case 'error':
        if (phase === 'completed') this.emit(es, { kind: 'error', summary: this.clean(errorText(item.message)) });
        return;
    }
  }

  // ------------------------------------------------------------------ Gemini CLI

  /** `--output-format json`: `{response, stats: {models, tools: {byName}}, error?}`, pretty-printed, at the end. */
  private geminiDocument(tail: string, out: TranscriptEntry[]): void {
    const es: Sink = [];
    const doc = documentIn(tail);
    if (!doc) {
      if (/^[{}]/m.test(tail)) {
        // A document, but cut to its last bytes (a response over DOCUMENT_TAIL_MAX) or broken.
        this.emit(es, { kind: 'error', summary: `the run's JSON output could not be read (more than ${DOCUMENT_TAIL_MAX / 1024} KiB, or not complete)` });
      } else {
        // No document at all (a CLI that printed plain text): its lines as text.
        for (const l of tail.split('\n')) if (l.trim() && es.length < ENTRIES_PER_LINE_MAX) this.emit(es, { kind: 'text', summary: this.clean(l) });
      }
      out.push(...es);
      return;
    }
    const byName = recordAt(recordAt(recordAt(doc.stats)?.tools)?.byName);
    if (byName) {
      let n = 0;
      for (const name in byName) {
        if (!Object.hasOwn(byName, name) || n++ >= ENTRIES_PER_LINE_MAX - 2) break;
        const t = recordAt(byName[name]);
        const calls = count(t?.count) ?? 0;
        const fails = count(t?.fail) ?? 0;
        this.emit(es, { kind: 'tool_call', tool: this.toolName(name), summary: `${calls} call${calls === 1 ? '' : 's'}${fails ? `, ${fails} failed` : ''}` });
      }
    }
    if (doc.error !== undefined && doc.error !== null) this.emit(es, { kind: 'error', summary: this.clean(errorText(doc.error)) });
    if (typeof doc.response === 'string') this.emit(es, { kind: 'result', summary: this.clean(doc.response) || '(empty)' });
    out.push(...es);
  }

  /** `--output-format stream-json`: init, message (assistant deltas), tool_use, tool_result, error, result. */
  private geminiEvent(o: Record<string, unknown>, es: Sink): void {
    switch (o.type) {
      case 'message':
        if (o.role !== 'assistant' || typeof o.content !== 'string') return;
        if (o.delta !== true) this.flushText(es);
        if (this.pendingText.length < 2 * MASK_WINDOW) this.pendingText += o.content.slice(0, 2 * MASK_WINDOW);
        if (o.delta !== true) this.flushText(es);
        return;
      case 'tool_use': {
        this.flushText(es);
        this.answer = undefined;
        const call = this.remember(o.tool_id, o.tool_name, o.parameters);
        this.emit(es, { kind: 'tool_call', tool: call.name, summary: this.argumentsSummary(o.parameters) });
        return;
      }
      case 'tool_result': {
        this.flushText(es);
        const tool = typeof o.tool_id === 'string' ? this.tools.get(o.tool_id)?.name : undefined;
        const failed = o.status === 'error';
        const output = typeof o.output === 'string' && o.output.trim() ? o.output : failed ? errorText(o.error) : blocksText(o.output ?? '');
        this.emit(es, { kind: 'tool_result', tool, summary: this.withPrefix(failed ? 'error: ' : '', output) });
        return;
      }
      case 'error':
        this.flushText(es);
        this.emit(es, { kind: 'error', summary: this.withPrefix(o.severity === 'warning' ? 'warning: ' : '', errorText(o.message ?? o.error)) });
        return;
      case 'result': {
        this.flushText(es);
        if (o.status === 'error' || o.error) {
          this.emit(es, { kind: 'result', summary: this.withPrefix('error: ', o.error ? errorText(o.error) : 'the run failed') });
          return;
        }
        const stats = recordAt(o.stats);
        const calls = count(stats?.tool_calls);
        const tokens = count(stats?.total_tokens);
        const line = [stringOf(o.status) || 'done', calls !== null ? `${calls} tool calls` : '', tokens !== null ? `${tokens} tokens` : ''].filter(Boolean).join(', ');
        this.emit(es, { kind: 'result', summary: this.answer ?? line });
        return;
      }
    }
  }

  private flushText(es: Sink): void {
    if (!this.pendingText) return;
    const summary = this.clean(this.pendingText);
    this.pendingText = '';
    if (!summary) return;
    this.answer = summary;
    this.emit(es, { kind: 'text', summary });
  }

  // ------------------------------------------------------------------ summaries

  /** A string from the stream as a human may read it: masked first, then shortened. */
  private clean(raw: string, max = SUMMARY_MAX_CHARS): string {
    const cut = safeCut(raw, MASK_WINDOW, this.secrets);
    const masked = maskSecrets(withoutControls(raw.slice(0, cut)), this.secrets).trim();
    return shorten(masked, max, cut < raw.length);
  }

  /** A prefix of our own, then text from the stream, the whole within SUMMARY_MAX_CHARS. */
  private withPrefix(prefix: string, text: string): string {
    // Hosts often start an error's text with "Error:" already.
    const body = this.clean(prefix === 'error: ' ? text.replace(/^\s*error:\s*/i, '') : text, SUMMARY_MAX_CHARS - prefix.length);
    return prefix || body ? prefix + body : '(no output)';
  }

  private toolName(v: unknown): string | undefined {
    return typeof v === 'string' && v ? this.clean(v, TOOL_MAX_CHARS) : undefined;
  }

  private remember(id: unknown, name: unknown, input: unknown): ToolCall {
    const call: ToolCall = { name: this.toolName(name), target: this.targetOf(input) };
    if (typeof id === 'string' && id.length <= 256) {
      if (this.tools.size >= TOOLS_REMEMBERED_MAX) this.tools.delete(this.tools.keys().next().value!);
      this.tools.set(id, call);
    }
    return call;
  }

  private targetOf(input: unknown): string | undefined {
    const r = recordAt(input);
    if (!r) return undefined;
    for (const k of TARGET_KEYS) if (typeof r[k] === 'string' && r[k]) return this.clean(r[k], VALUE_MAX_CHARS);
    return undefined;
  }

  /**
   * A tool's arguments as shortened JSON: each string masked and cut to VALUE_MAX_CHARS, file
   * contents and patches as their length, at most 12 keys and 10 items a level, 3 levels.
   */
  private argumentsSummary(input: unknown): string {
    const budget = { values: 200 };
    const brief = (v: unknown, key: string | undefined, depth: number): unknown => {
      if (--budget.values < 0) return '…';
      if (typeof v === 'string') return key !== undefined && BULKY_KEYS.has(key) && v.length > 60 ? `<${v.length} chars>` : this.clean(v, VALUE_MAX_CHARS);
      if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
      if (Array.isArray(v)) {
        if (depth >= 3) return `[${v.length} items]`;
        const items = v.slice(0, 10).map((x) => brief(x, key, depth + 1));
        if (v.length > 10) items.push(`…${v.length - 10} more`);
        return items;
      }
      if (typeof v === 'object') {
        if (depth >= 3) return '{…}';
        const out: Record<string, unknown> = Object.create(null);
        let n = 0;
        for (const k in v) {
          if (!Object.hasOwn(v, k)) continue;
          if (n++ >= 12) {
            out['…'] = 'more';
            break;
          }
          out[this.clean(k, 60)] = brief((v as Record<string, unknown>)[k], k, depth + 1);
        }
        return out;
      }
      return null;
    };
    if (input === undefined) return '{}';
    const json = JSON.stringify(brief(input, undefined, 0)) ?? '';
    // Every piece is masked already; the whole once more, as the JSON joins them.
    return shorten(maskSecrets(json, this.secrets), SUMMARY_MAX_CHARS, false);
  }
}

/** A bounded list of strings, joined only when read (a line fed byte by byte stays linear). */
class Pieces {
  private done: string[] = [];
  private recent: string[] = [];
  length = 0;
  add(s: string): void {
    this.recent.push(s);
    this.length += s.length;
    if (this.recent.length >= 1024) {
      this.done.push(this.recent.join(''));
      this.recent = [];
    }
  }
  take(): string {
    const s = this.done.join('') + this.recent.join('');
    this.clear();
    return s;
  }
  keepLast(n: number): void {
    const s = this.take().slice(-n);
    this.add(s);
  }
  clear(): void {
    this.done = [];
    this.recent = [];
    this.length = 0;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function recordAt(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Strings joined until there is more than masking reads. */
function joinBounded(parts: string[], sep: string): string {
  let out = '';
  for (const p of parts) {
    if (out.length > MASK_WINDOW) break;
    out += (out ? sep : '') + p;
  }
  return out;
}

/** A tool result's content: a string, or blocks (`{type: "text", text}`, images, tool references). */
function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return isRecord(content) ? (JSON.stringify(content) ?? '').slice(0, 2 * MASK_WINDOW) : '';
  const parts: string[] = [];
  for (const b of content.slice(0, ENTRIES_PER_LINE_MAX)) {
    const r = recordAt(b);
    if (typeof b === 'string') parts.push(b);
    else if (r?.type === 'text' && typeof r.text === 'string') parts.push(r.text.slice(0, 2 * MASK_WINDOW));
    else if (r?.type === 'tool_reference' && typeof r.tool_name === 'string') parts.push(`loaded ${r.tool_name.slice(0, TOOL_MAX_CHARS)}`);
    else if (typeof r?.type === 'string') parts.push(`[${r.type.slice(0, 40)}]`);
  }
  return joinBounded(parts, '\n');
}

/**
 * An error's message. The hosts pass API errors on as the API's own JSON body inside their
 * message (`{"error":{"message":…}}`, Gemini as `[API Error: {…}]`): the inner message is the one to read.
 */
function errorText(e: unknown): string {
  const r = recordAt(e);
  const s = typeof e === 'string' ? e : typeof r?.message === 'string' ? r.message : r ? (JSON.stringify(r) ?? '') : stringOf(e);
  if (s.length > 64 * 1024) return s;
  const a = s.indexOf('{');
  const b = s.lastIndexOf('}');
  if (a < 0 || b < a) return s;
  try {
    const inner = recordAt(JSON.parse(s.slice(a, b + 1)));
    const m = recordAt(inner?.error)?.message ?? inner?.message;
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON inside: the message as it is
  }
  return s;
}

function usageSummary(u: Record<string, unknown> | undefined): string {
  const input = count(u?.input_tokens);
  const cached = count(u?.cached_input_tokens);
  const output = count(u?.output_tokens);
  const parts: string[] = [];
  if (input !== null) parts.push(`${input} input tokens${cached ? ` (${cached} cached)` : ''}`);
  if (output !== null) parts.push(`${output} output tokens`);
  return parts.length ? `turn completed: ${parts.join(', ')}` : 'turn completed';
}

/** Gemini's document: from the first line that opens an object (warnings may come before it). */
function documentIn(tail: string): Record<string, unknown> | undefined {
  const starts = [tail.startsWith('{') ? 0 : -1, tail.indexOf('\n{'), tail.lastIndexOf('\n{')];
  for (const at of starts) {
    if (at < 0) continue;
    try {
      const doc = JSON.parse(tail.slice(at));
      if (isRecord(doc)) return doc;
    } catch {
      // try the next start
    }
  }
  return undefined;
}

/** Characters of the base64url alphabet and dots: the shapes of the issued secrets and JWS. */
function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46;
}

/** How far a cut backs up out of a token; a longer run is masked whole or shortened away anyway. */
const TOKEN_BACKUP_MAX = 4096;

/**
 * Where to cut s to at most `limit` characters for masking, so that no secret straddles the cut:
 * not inside a known secret, not inside a run of token characters (a prefixed secret or a JWS
 * cut short would no longer match its mask).
 */
function safeCut(s: string, limit: number, secrets: readonly string[]): number {
  if (s.length <= limit) return s.length;
  let cut = limit;
  for (let moved = true, rounds = 0; moved && rounds <= secrets.length; rounds++) {
    moved = false;
    for (const secret of secrets) {
      if (secret.length < 2 || cut === 0) continue;
      const from = Math.max(0, cut - secret.length + 1);
      const at = s.slice(from, cut + secret.length - 1).indexOf(secret);
      if (at >= 0 && from + at < cut) {
        cut = from + at;
        moved = true;
      }
    }
  }
  if (cut > 0 && isTokenChar(s.charCodeAt(cut)) && isTokenChar(s.charCodeAt(cut - 1))) {
    let start = cut - 1;
    while (start > 0 && cut - start < TOKEN_BACKUP_MAX && isTokenChar(s.charCodeAt(start - 1))) start--;
    if (start > 0 && cut - start < TOKEN_BACKUP_MAX) cut = start;
  }
  return cut;
}

/** ANSI escape sequences and other control characters (tabs and newlines stay). */
const CONTROLS_RE = /\u001b\[[0-9;?]*[ -/]*[@-~]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function withoutControls(s: string): string {
  return s.replace(CONTROLS_RE, '');
}

/** s within max characters, ending with '…' when shortened (or when it was cut before masking). */
function shorten(s: string, max: number, cutBefore: boolean): string {
  if (s.length <= max && !cutBefore) return s;
  let end = Math.min(s.length, max - 1);
  const c = s.charCodeAt(end - 1);
  if (end > 0 && c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end).trimEnd() + '…';
}
