import type { WakeUsage } from './store.js';
import type { HostAdapter, UsageState } from '../hosts/adapter.js';

/**
 * Reads what a run cost from the host CLI's own machine-readable output (docs/wakes.md
 * "Usage"), line by line as stdout arrives, so a long JSON stream is never held whole:
 * - Claude Code `-p --output-format stream-json` (or `json`): the `result` event's `usage`,
 *   `total_cost_usd` and `modelUsage`;
 * - `codex exec --json`: the `usage` of every `turn.completed` event, summed;
 * - Gemini `--output-format stream-json` (the preset): assistant `message` events (the answer)
 *   and the `result` event's `stats` (tokens, and the models in `stats.models`);
 * - Gemini `--output-format json`: one (pretty-printed) object whose `stats.models` hold the
 *   tokens per model; read from the last bytes of stdout at the end;
 * - any runner: the same object as `usage` (`{input_tokens, output_tokens, cache_read_tokens,
 *   cost_usd, model}`, or `{"usage": {...}}`) on its last stdout line.
 * - a host whose adapter reads its own events (hosts/adapter.ts usageEvent): what it says first.
 * It also picks the model's final text out of those streams, so the output tail a human reads
 * is the answer rather than the last bytes of a JSON stream.
 */
/**
 * How much of a model name is read. It is runner output: it is masked first and cut to 200
 * characters after (mask.ts keptUsage), since a cut made before the masking could leave part of
 * a secret that crossed it (docs/security.md "Third round").
 */
const MODEL_READ_MAX = 64 * 1024;

export class UsageScanner {
  /** What the host's adapter read of its events. */
  private readonly host: UsageState = {};

  constructor(private readonly hostEvent?: HostAdapter['usageEvent']) {}

  private pending = '';
  private usage: WakeUsage | undefined;
  private codex: WakeUsage | undefined;
  private lastLine: unknown;
  private answer: string | undefined;
  private geminiAnswer: string | undefined;
  /** The last bytes of stdout, for a whole-document JSON output (Gemini). */
  private tail = '';
  private static readonly LINE_MAX = 4 * 1024 * 1024;
  private static readonly TAIL_MAX = 256 * 1024;

  push(chunk: Buffer | string): void {
    const s = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.tail = (this.tail + s).slice(-UsageScanner.TAIL_MAX);
    this.pending += s;
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      this.line(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
    }
    // A line longer than any usage report is not one: drop it rather than grow without end.
    if (this.pending.length > UsageScanner.LINE_MAX) this.pending = '';
  }

  private line(raw: string): void {
    const t = raw.trim();
    if (!t) return;
    this.lastLine = undefined;
    if (!t.startsWith('{')) return;
    let o: any;
    try {
      o = JSON.parse(t);
    } catch {
      return;
    }
    this.lastLine = o;
    this.event(o);
  }

  private event(o: any): void {
    if (!o || typeof o !== 'object') return;
    if (this.hostEvent) {
      try {
        this.hostEvent(o, this.host);
      } catch {
        // an adapter's reading of hostile output never ends the run
      }
    }
    if (o.type === 'result' && (o.usage || o.total_cost_usd !== undefined)) {
      const u = o.usage ?? {};
      const models = o.modelUsage && typeof o.modelUsage === 'object' ? Object.keys(o.modelUsage) : [];
      this.usage = {
        input_tokens: sumOrNull(u.input_tokens, u.cache_creation_input_tokens),
        output_tokens: num(u.output_tokens),
        cache_read_tokens: num(u.cache_read_input_tokens),
        cost_usd: num(o.total_cost_usd),
        model: models.length ? models.join(',') : (this.usage?.model ?? null),
      };
      if (typeof o.result === 'string') this.answer = o.result;
      return;
    }
    // Gemini CLI `--output-format stream-json`: the answer in assistant messages (deltas), the tokens in `result.stats`.
    if (o.type === 'message' && o.role === 'assistant' && typeof o.content === 'string') {
      this.geminiAnswer = (o.delta === true ? (this.geminiAnswer ?? '') : '') + o.content;
      if (this.geminiAnswer.length > UsageScanner.TAIL_MAX) this.geminiAnswer = this.geminiAnswer.slice(-UsageScanner.TAIL_MAX);
      this.answer = this.geminiAnswer;
      return;
    }
    if (o.type === 'result' && o.stats && typeof o.stats === 'object') {
      const st = o.stats;
      const models = st.models && typeof st.models === 'object' ? Object.keys(st.models) : [];
      this.usage = {
        input_tokens: num(st.input_tokens),
        output_tokens: num(st.output_tokens),
        cache_read_tokens: num(st.cached),
        cost_usd: null,
        model: models.length ? models.join(',').slice(0, MODEL_READ_MAX) : null,
      };
      return;
    }
    if (o.type === 'system' && o.subtype === 'init' && typeof o.model === 'string') {
      this.usage = { ...(this.usage ?? emptyUsage()), model: this.usage?.model ?? o.model };
      return;
    }
    if (o.type === 'turn.completed' && o.usage) {
      const u = o.usage;
      const prev = this.codex ?? emptyUsage();
      this.codex = {
        input_tokens: sumOrNull(prev.input_tokens, num(u.input_tokens)),
        output_tokens: sumOrNull(prev.output_tokens, num(u.output_tokens)),
        cache_read_tokens: sumOrNull(prev.cache_read_tokens, num(u.cached_input_tokens)),
        cost_usd: null,
        model: null,
      };
      return;
    }
    if (o.type === 'item.completed' && o.item?.type === 'agent_message' && typeof o.item.text === 'string') this.answer = o.item.text;
  }

  /** The usage read, or undefined when the output said nothing about it. */
  result(): { usage?: WakeUsage; answer?: string } {
    if (this.pending) {
      this.line(this.pending);
      this.pending = '';
    }
    const own = ownUsage(this.lastLine);
    if (own) return { usage: own, answer: this.host.answer ?? this.answer };
    if (this.host.usage && hasAny(this.host.usage)) return { usage: this.host.usage, answer: this.host.answer ?? this.answer };
    if (this.host.answer !== undefined && !this.usage && !this.codex) return { answer: this.host.answer };
    if (this.usage && hasAny(this.usage)) return { usage: this.usage, answer: this.answer };
    if (this.codex) return { usage: this.codex, answer: this.answer };
    const gemini = geminiUsage(this.tail);
    if (gemini) return gemini;
    return { answer: this.answer };
  }
}

function emptyUsage(): WakeUsage {
  return { input_tokens: null, output_tokens: null, cache_read_tokens: null, cost_usd: null, model: null };
}

const hasAny = (u: WakeUsage) => Object.values(u).some((v) => v !== null);

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

function sumOrNull(...vs: unknown[]): number | null {
  const ns = vs.map(num).filter((n): n is number => n !== null);
  return ns.length ? ns.reduce((a, b) => a + b, 0) : null;
}

const USAGE_KEYS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cost_usd', 'model'] as const;

/** A runner's own report on its last line: the usage object, bare or as `{usage: {...}}`. */
function ownUsage(o: unknown): WakeUsage | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const rec = o as Record<string, unknown>;
  const u = (rec.type === undefined && rec.usage && typeof rec.usage === 'object' ? rec.usage : rec) as Record<string, unknown>;
  if (rec.type !== undefined || !USAGE_KEYS.some((k) => k in u)) return undefined;
  const usage: WakeUsage = {
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    cache_read_tokens: num(u.cache_read_tokens),
    cost_usd: num(u.cost_usd),
    model: typeof u.model === 'string' ? u.model.slice(0, MODEL_READ_MAX) : null,
  };
  return hasAny(usage) ? usage : undefined;
}

/** Gemini's `--output-format json`: `{response, stats: {models: {NAME: {tokens: {prompt, candidates, cached}}}}}`. */
function geminiUsage(tail: string): { usage?: WakeUsage; answer?: string } | undefined {
  const start = tail.indexOf('{');
  if (start < 0) return undefined;
  let o: any;
  try {
    o = JSON.parse(tail.slice(start));
  } catch {
    return undefined;
  }
  const models = o?.stats?.models;
  if (!models || typeof models !== 'object') return undefined;
  const u = emptyUsage();
  for (const m of Object.values(models) as any[]) {
    const t = m?.tokens ?? {};
    u.input_tokens = sumOrNull(u.input_tokens, num(t.prompt));
    u.output_tokens = sumOrNull(u.output_tokens, num(t.candidates));
    u.cache_read_tokens = sumOrNull(u.cache_read_tokens, num(t.cached));
  }
  u.model = Object.keys(models).join(',') || null;
  return { usage: u, answer: typeof o.response === 'string' ? o.response : undefined };
}
