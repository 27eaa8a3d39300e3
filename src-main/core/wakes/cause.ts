import { maskIssuedSecrets } from './mask.js';

/**
 * A failed wake's cause in one line (docs/wakes.md "A failed wake's cause"), beside its full
 * `reason`: what a person reads under the message and in Needs you. Derived from the fields the
 * reader may see (reason, exit code and, for the agent's own owner only, the output tails), so a
 * reader without the tails gets a cause that quotes no output. Pure and bounded: the tails are
 * at most a few KiB (runners.ts TAIL_BYTES) and each line is looked at once.
 */

/** The most characters of a cause. */
export const CAUSE_CHARS = 200;
/** Lines of a tail looked at, from its end. */
const LINES_LOOKED_AT = 200;

/** What the cause is made from: the wake record's fields as its reader sees them (tails null when hidden). */
export interface CauseInput {
  status: string;
  reason: string | null;
  exit_code?: number | null;
  stderr_tail?: string | null;
  stdout_tail?: string | null;
}

// A stack frame ("    at f (file:1:2)", "at async …"), a Python/Rust frame, or a bare location.
const FRAME = /^(at\s|at async\s|File ".*", line \d+|\d+:\s+0x[0-9a-f]+|\^+$|~+$|-{3,}$|Traceback \(most recent call last\))/i;
// Lines that are never the cause: banners, terminal warnings, progress.
const NOISE = /^(warning\b|warn\b|note:|hint:|info\b|debug\b|trace\b|ripgrep is not available|loaded cached credentials|data collection is disabled)/i;
// A line that says something went wrong.
const ERRORISH = /(error|fail|fatal|exception|refused|denied|not found|no such|cannot|can't|could not|unable|invalid|unauthori[sz]ed|forbidden|quota|rate limit|timed? ?out|panic|abort)/i;
// The model's API could not be reached (what the pinned hosts print against a closed port or without DNS).
const UNREACHABLE =
  /(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|fetch failed|connection error|connection refused|failed to connect|error sending request|name does not resolve|failed to lookup address|getaddrinfo|could not resolve host|waiting for network|network is unreachable)/i;

/** A line without the log prefix hosts put before it: a timestamp, a level, a module path. */
function stripPrefix(line: string): string {
  return line
    .replace(/^\[?\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?\]?\s*/, '')
    .replace(/^(ERROR|WARN|INFO|DEBUG|TRACE)\s+[\w:.-]+:\s*/, '')
    .replace(/^(ERROR|Error):\s*(?=\S)/, (m) => (m.startsWith('ERROR') ? '' : m))
    .trim();
}

/** The text of a JSON event line a host prints (`{"type":"error","message":…}`, a result with `is_error`), else the line. */
function jsonText(line: string): string | undefined {
  if (!line.startsWith('{') || !line.endsWith('}')) return line;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    // Claude Code's retry of a request that got no HTTP answer at all: the API was not reached.
    if (o.subtype === 'api_retry') {
      const status = typeof o.error_status === 'number' ? o.error_status : null;
      return status === null ? `connection error: the API request got no answer (attempt ${String(o.attempt)} of ${String(o.max_retries)})` : `the API answered HTTP ${status} (attempt ${String(o.attempt)} of ${String(o.max_retries)})`;
    }
    const err = o.error as Record<string, unknown> | string | undefined;
    const msg =
      (typeof o.message === 'string' && o.message) ||
      (typeof err === 'string' && err !== 'unknown' && err) ||
      (err && typeof err === 'object' && typeof err.message === 'string' && err.message) ||
      (o.is_error === true && typeof o.result === 'string' && o.result) ||
      undefined;
    return msg || undefined;
  } catch {
    return line;
  }
}

/**
 * The host's last meaningful error line in a tail: the last line that says something failed,
 * not a stack frame, a warning or a progress line; else the last line that is not noise.
 */
export function lastErrorLine(tail: string | null | undefined): string | undefined {
  if (!tail) return undefined;
  const lines = tail.split(/\r?\n/).slice(-LINES_LOOKED_AT);
  let fallback: string | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    const raw = lines[i]!.trim();
    if (!raw || FRAME.test(raw)) continue;
    const text = jsonText(raw);
    if (!text) continue;
    const line = stripPrefix(text.split(/\r?\n/)[0]!.trim());
    if (!line || FRAME.test(line) || NOISE.test(line)) continue;
    if (ERRORISH.test(line)) return line;
    fallback ??= line;
  }
  return fallback;
}

/** One line, masked, at most CAUSE_CHARS characters. */
function oneLine(s: string): string {
  const t = maskIssuedSecrets(s.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim());
  return t.length <= CAUSE_CHARS ? t : `${t.slice(0, CAUSE_CHARS - 1)}…`;
}

/**
 * The not-found sentence with its PATH cut in the middle so that the whole line fits CAUSE_CHARS:
 * which command and the fix are what a person acts on; the PATH's start and end say enough.
 */
function fitPath(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  const m = /^(.*on the server's PATH \()(.*)(\); install it .*)$/.exec(t);
  if (!m || t.length <= CAUSE_CHARS) return t;
  const room = CAUSE_CHARS - m[1]!.length - m[3]!.length - 1;
  if (room < 12) return t;
  const path = m[2]!;
  const head = Math.ceil(room * 0.6);
  return `${m[1]}${path.slice(0, head)}…${path.slice(path.length - (room - head))}${m[3]}`;
}

/** The first clause of a reason (up to its first ";"): what it says before the details. */
function firstClause(reason: string): string {
  const i = reason.indexOf('; ');
  return i > 0 ? reason.slice(0, i) : reason;
}

/**
 * A failed wake's cause (null for any other status): a command the server could not find says
 * which and how to fix it (the reason says so, runner-run.ts); an exit code adds the host's last
 * error line from the tails the reader may see, or says the model could not be reached when that
 * line says so; anything else is the reason's first clause.
 */
export function wakeCause(w: CauseInput): string | null {
  if (w.status !== 'failed' || !w.reason) return null;
  const reason = w.reason;
  // A command the spawn could not find: what notFoundReason (runner-run.ts) says after the code, fix included.
  const notFound = /\(ENOENT\): (.*)$/s.exec(reason);
  if (notFound) return oneLine(fitPath(notFound[1]!));
  if (/could not be started/.test(reason)) return oneLine(firstClause(reason));
  if (/^the runner exited with code \d+|^the runner timed out|^the runner ended without an exit code|^the runner was ended by/.test(reason)) {
    const line = lastErrorLine(w.stderr_tail) ?? lastErrorLine(w.stdout_tail);
    const head = firstClause(reason);
    if (!line) return oneLine(head);
    if (UNREACHABLE.test(line)) return oneLine(`the model's API could not be reached (${head.replace(/^the runner /, '')}): ${line}`);
    return oneLine(`${head}: ${line}`);
  }
  return oneLine(firstClause(reason));
}

/**
 * A failed wake's reason as a stable code, for the failures that are no fault (docs/wakes.md "A
 * failed wake's cause"): the wake's task moved on before it ran, in the exact words the tasks
 * capability gives (tasks/store.ts taskWakeStaleReason). The window keys on the code (a wake
 * dropped because its task was finished reads "skipped") and never parses the reason.
 */
export type WakeReasonCode = 'task_gone' | 'task_reassigned' | 'task_archived' | 'task_done' | 'task_cancelled';
const TASK_MOVED_ON: Record<string, WakeReasonCode> = {
  'the task no longer exists': 'task_gone',
  'the task was reassigned to another agent': 'task_reassigned',
  'the task was archived': 'task_archived',
  'the task is already done': 'task_done',
  'the task is already cancelled': 'task_cancelled',
};

export function wakeReasonCode(w: Pick<CauseInput, 'status' | 'reason'>): WakeReasonCode | null {
  if (w.status !== 'failed' || !w.reason) return null;
  return Object.hasOwn(TASK_MOVED_ON, w.reason) ? TASK_MOVED_ON[w.reason]! : null;
}
