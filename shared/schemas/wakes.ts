import { z } from 'zod';
import { withActions } from '../contracts/acts.js';
import { WAKE_ACTIONS } from '../acts.js';

/**
 * The wake and runner records of the human API (/v1/.../wakes, runners, doctor, usage, the wake
 * settings), and the bodies and queries those endpoints take, declared once here; the contracts
 * (shared/contracts/wakes.ts) answer and parse them, shared/api-types.ts derives the UI's types
 * from them (`z.output`, types only).
 */

/** What a run may do (docs/worktrees.md "Work policies"). */
export const WORK_POLICIES = ['room', 'edit', 'full'] as const;
export const workPolicy = z.enum(WORK_POLICIES);

/** A runner's timeout bounds (docs/wakes.md "Runners"). */
export const RUNNER_TIMEOUT_MIN_MS = 100;
export const RUNNER_TIMEOUT_MAX_MS = 24 * 60 * 60 * 1000;

/** The bounds of the overnight limits (docs/wakes.md "Wakes you can leave running"). */
export const MAX_CHAIN_LIMIT = 1000;
export const WAKE_BUDGET_LIMIT = 100_000;

/** A runner as PUT /v1/agents/:plate/runners/:host saves it: its env's names only, each value `***`. */
export const runnerRecord = z.object({
  plate: z.string(),
  host: z.string(),
  /** Absent for a command runner. */
  preset: z.string().optional(),
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string().nullable(),
  timeout_ms: z.number(),
  env: z.record(z.string(), z.string()),
  /** Queued mentions of one (agent, room) start as one run (docs/wakes.md "Coalescing"). */
  coalesce: z.boolean(),
  /**
   * What a run may do (docs/worktrees.md "Work policies"): `room` the room's tools only, `edit`
   * also the host's read and edit tools confined to the run's folder, `full` also shell commands
   * inside the host's sandbox; null: `edit` for a run in a task's worktree, else `room`.
   */
  work: workPolicy.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A runner as GET lists it: `enabled` false when its owner may not run commands here (allow_runners), so it does not start. */
export const listedRunner = runnerRecord.extend({ enabled: z.boolean() });

/** What a run cost, as the host CLI reported it. */
export const wakeUsage = z.object({
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  cache_read_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
  model: z.string().nullable(),
});

/**
 * Wake statuses: queued, running, handled, failed (a dropped held wake ends failed with reason
 * `dropped`), held (reason `loop_guard` or `budget`: POST /v1/wakes/:id/release or /drop),
 * merged (coalesced into `merged_into`).
 */
export const wakeStatus = z.enum(['queued', 'running', 'handled', 'failed', 'held', 'merged']);

/** What queued a wake: a mention, an assigned task, a successor its prerequisite's completion made claimable, a granted reservation (docs/contract.md "Wakes"). */
export const wakeTrigger = z.enum(['mention', 'assignment', 'successor', 'paths_free']);

/** Where a wake goes: a live channel session, a runner the server starts, or the agent's inbox (pull). */
export const wakeTarget = z.enum(['channel', 'runner', 'pull']);

/**
 * A wake as the human API shows it (wakes/store.ts `WakeDto` is its `z.output`; wakes/present.ts
 * adds the `handle` and nulls the owner-only fields for other viewers).
 */
export const wakeRecord = z.object({
  wake_id: z.string(),
  plate: z.string(),
  handle: z.string().optional(),
  room: z.string(),
  host: z.string().nullable(),
  trigger: wakeTrigger,
  status: wakeStatus,
  task_id: z.string().nullable(),
  message_id: z.string().nullable(),
  reason: z.string().nullable(),
  target: wakeTarget.nullable(),
  instance_id: z.string().nullable(),
  /** The room's context version the run started on (the envelope carries it); null before it runs. */
  context_version: z.number().nullable(),
  exit_code: z.number().nullable(),
  /** The runner's output tails: only for the agent's own owner, null for others. */
  stdout_tail: z.string().nullable(),
  stderr_tail: z.string().nullable(),
  tool_calls: z.number().nullable(),
  /** Handled without any tool call back to the server: the agent did nothing visible. */
  no_tool_call: z.boolean(),
  /** 0 when a human caused it; one deeper per agent write made while running a wake. */
  chain_depth: z.number(),
  /** A retry (POST /v1/wakes/:id/retry) names the failed wake it repeats. */
  retry_of: z.string().nullable(),
  /** status `merged`: the wake whose run took this one's message. */
  merged_into: z.string().nullable(),
  /** A coalesced run: every message it answers, in order. */
  message_ids: z.array(z.string()).nullable(),
  /** What the run cost, as the host CLI reported it; null when it said nothing. */
  usage: wakeUsage.nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  /** When a runner's run last printed anything; null before its first output (docs/wakes.md "Live runs"). */
  last_output_at: z.string().nullable(),
  /** A failed wake's cause in one line, masked; quotes the output tails only for the agent's owner (docs/wakes.md "A failed wake's cause"). */
  cause: z.string().nullable(),
  /** A failure that is no fault, as a stable code (docs/wakes.md "A failed wake's cause"): the wake's task moved on before it ran. */
  reason_code: z.enum(['task_gone', 'task_reassigned', 'task_archived', 'task_done', 'task_cancelled']).nullable(),
});

/** One runner as the server itself would start it (docs/wakes.md "Checking what wakes an agent"). */
export const runnerCheck = z.object({
  host: z.string(),
  preset: z.string().nullable(),
  command: z.string(),
  /** The absolute path the server's spawn resolves the command to, under its own PATH and the runner's env. */
  resolved: z.string().nullable(),
  /** The first line `--version` printed (masked). */
  version: z.string().nullable(),
  ok: z.boolean(),
  problem: z.string().nullable(),
  fix: z.string().nullable(),
});

/** POST /v1/agents/:plate/doctor: what decides whether a mention wakes the agent, checked from the server's environment. */
export const wakeabilityReport = z.object({
  plate: z.string(),
  handle: z.string(),
  /** A live claude-code session that opted in to channels and holds a GET stream. */
  channel_session: z.boolean(),
  runners: z.array(runnerCheck),
  /** Where a mention of this agent goes now: the first target that can take it. */
  wakes_by: z.enum(['channel', 'runner', 'inbox']),
  reason: z.string(),
  /** For each credential the caller asked about (host configs), whether it is a live credential of this agent. */
  credentials: z.array(z.object({ live: z.boolean() })),
});

export const usageSums = z.object({
  wakes: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cost_usd: z.number(),
});

/** GET /v1/usage?room=&plate=&since=: over the wakes the caller may see. */
export const usageSummary = z.object({
  totals: usageSums,
  /** `handle`: the agent's `@name(owner)` beside its plate (absent when no agent holds the plate any more). */
  by_agent: z.array(usageSums.extend({ plate: z.string(), handle: z.string().optional() })),
  by_room: z.array(usageSums.extend({ room: z.string() })),
});

/** GET/PUT /v1/settings/wakes (primary owner): the overnight limits. */
export const wakeSettings = z.object({
  max_chain: z.number(),
  /** Started wakes per agent per hour; 0 = no limit. */
  wake_budget: z.number(),
});

/**
 * A wake as a human reads it (wakes/present.ts): its agent's `handle` beside the plate, and what
 * the reader may do with it now (docs/wakes.md "Acting on a wake").
 */
export const humanWake = withActions(wakeRecord.extend({ handle: z.string() }), WAKE_ACTIONS);

/** GET /v1/rooms/:id/wakes (and /v1/agents/:plate/wakes; `?message_id=`, `?task_id=` filter): the newest wakes first, paged by `next_cursor`. */
export const wakePage = z.object({
  wakes: z.array(humanWake),
  next_cursor: z.string().nullable(),
  next_before_seq: z.number().nullable(),
});

/** One event of a run's transcript (docs/wakes.md "Live runs"): what the host's JSON stream said, shortened and masked. */
export const transcriptEvent = z.object({
  seq: z.number().int(),
  at: z.string(),
  kind: z.enum(['text', 'tool_call', 'tool_result', 'error', 'result']),
  tool: z.string().optional(),
  summary: z.string(),
});

/** GET /v1/wakes/:id/transcript?after=SEQ&limit=N: the events after SEQ, oldest first. */
export const transcriptPage = z.object({
  wake_id: z.string(),
  status: wakeStatus,
  /** The agent whose run it is: its plate and `@name(owner)` handle (absent when no agent holds the plate any more). */
  plate: z.string().optional(),
  handle: z.string().optional(),
  events: z.array(transcriptEvent),
  /** Pass as `after` for the next page; null when this page reached the newest event. */
  next_after: z.number().int().nullable(),
  /** Events dropped from the front to keep the bounds (2,000 events, 1 MB). */
  dropped: z.number().int(),
  /** When the run last printed anything (any stdout or stderr byte); null before its first output. */
  last_output_at: z.string().nullable(),
});

/** A runner preset of GET /v1/runner-presets (`{presets}`): a host's command line, ready to use. */
export const runnerPreset = z.object({
  preset: z.string(),
  host: z.string(),
  command: z.string(),
  args: z.array(z.string()).readonly(),
});

/** GET /v1/doctor/worktrees (docs/worktrees.md "Clean-up"): git, the worktrees folder and its orphans, and what each preset's edit and full can do here. */
export const worktreeDoctorReport = z.object({
  git: z.object({ ok: z.boolean(), version: z.string().nullable(), min_version: z.string(), problem: z.string().nullable() }),
  worktrees_dir: z.string(),
  /** The task folders that belong to a live task (the primary owner only; null for others). */
  task_worktrees: z.number().int().nullable(),
  /** Task folders whose task is gone or no longer has them, and why (the primary owner only). */
  orphans: z.array(z.object({ path: z.string(), room: z.string(), task_id: z.string(), why: z.string() })),
  work: z.array(z.object({ preset: z.string(), host: z.string(), policy: z.enum(['edit', 'full']), ok: z.boolean(), problem: z.string().nullable() })),
});

// ---- what the endpoints take

/**
 * Whether `p` is an absolute path where the server runs, as node:path's isAbsolute says it
 * (shared code imports no Node module; only the server parses these schemas): `/…`, and on
 * Windows also `\…` and `C:\…` or `C:/…`.
 */
function isAbsolutePath(p: string): boolean {
  const windows = (globalThis as { process?: { platform?: string } }).process?.platform === 'win32';
  return windows ? /^[\\/]/.test(p) || /^[A-Za-z]:[\\/]/.test(p) : p.startsWith('/');
}

const timeoutMs = z.number().int().min(RUNNER_TIMEOUT_MIN_MS).max(RUNNER_TIMEOUT_MAX_MS);
const cwd = z.string().min(1).max(4096).refine(isAbsolutePath, 'must be an absolute path');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Runner env: API keys and base URLs of the host, for presets and commands alike. */
const runnerEnv = z
  .record(z.string().regex(ENV_NAME, 'must be an environment variable name'), z.string().max(8192))
  .refine((e) => Object.keys(e).length <= 100, 'at most 100 variables')
  .refine((e) => !Object.keys(e).some((k) => k.startsWith('AGENT_ROOMS_')), 'AGENT_ROOMS_* names are set by the server');
/**
 * The names of the saved env to keep as saved, beside `env`'s new values: the window, which never
 * sees the values, changes one variable without sending the others (docs/wakes.md "Runners").
 * With keep_env, a saved name that is in neither is removed.
 */
const keepEnv = z.array(z.string().regex(ENV_NAME, 'must be an environment variable name')).max(100);
/**
 * A preset may carry the absolute path of its host CLI, resolved where the CLI is installed
 * (`agent-rooms connect` does): a server started from another PATH still finds it.
 */
const presetCommand = z.string().min(1).max(4096).refine(isAbsolutePath, 'must be an absolute path (the preset\'s own command name is used when it is left out)');
/** What a run may do (docs/worktrees.md "Work policies"); null goes back to the default. */
const work = workPolicy.nullable();
/** What both forms of a runner take beside what they run. */
const runnerSettings = {
  cwd: cwd.optional(),
  timeout_ms: timeoutMs.optional(),
  env: runnerEnv.optional(),
  keep_env: keepEnv.optional(),
  coalesce: z.boolean().optional(),
  work: work.optional(),
};
export const presetRunnerBody = z.strictObject({
  preset: z.string().min(1).max(40),
  command: presetCommand.optional(),
  ...runnerSettings,
});
export const commandRunnerBody = z.strictObject({
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(8192)).max(200).optional(),
  ...runnerSettings,
});

/** What a runner save sends: a preset or a command. */
export type RunnerForm = z.input<typeof presetRunnerBody> | z.input<typeof commandRunnerBody>;

/**
 * PUT /v1/agents/:plate/runners/:host: a preset or a command. The `preset` key says which, and
 * only that form is checked, so an error names the fields of the form meant (a union would
 * answer "invalid input" for a body that fits neither). The union after it only states the two
 * forms (docs/contract.md shows them); what reaches it has passed its form already.
 */
export const runnerBody = z
  .transform((body: RunnerForm, ctx) => {
    const r = 'preset' in body ? presetRunnerBody.safeParse(body) : commandRunnerBody.safeParse(body);
    if (r.success) return r.data;
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  })
  .pipe(z.union([presetRunnerBody, commandRunnerBody]))
  .meta({ argNames: [...new Set([...Object.keys(presetRunnerBody.shape), ...Object.keys(commandRunnerBody.shape)])] });

/** The wake log's page: newest first, `cursor` (or the older `before_seq`) continues after the last wake shown. */
export const wakeQuery = z.object({
  status: wakeStatus.optional(),
  /** The wakes one message or one task caused. */
  message_id: z.string().min(1).max(100).optional(),
  task_id: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  before_seq: z.coerce.number().int().min(1).optional(),
  cursor: z.string().min(1).max(200).optional(),
});

/** POST /v1/agents/:plate/doctor: optionally, credentials found in host configs, to say whether each is live. */
export const doctorBody = z.strictObject({
  credentials: z.array(z.string().min(1).max(200)).max(20).optional(),
});

/** GET /v1/usage: sums over what the caller may see; `since` an ISO time. */
export const usageQuery = z.object({
  room: z.string().min(1).max(100).optional(),
  plate: z.string().min(1).max(100).optional(),
  since: z
    .string()
    .max(40)
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time')
    .optional(),
});

/** PUT /v1/settings/wakes: the overnight limits (docs/wakes.md). */
export const wakeSettingsBody = z
  .strictObject({
    max_chain: z.number().int().min(0).max(MAX_CHAIN_LIMIT).optional(),
    wake_budget: z.number().int().min(0).max(WAKE_BUDGET_LIMIT).optional(),
  })
  .refine((b) => b.max_chain !== undefined || b.wake_budget !== undefined, 'give max_chain, wake_budget or both');

/** GET /v1/wakes/:id/transcript: the events after `after` (a seq), at most `limit`. */
export const transcriptQuery = z.object({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
