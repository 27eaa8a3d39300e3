import { z } from 'zod';

/**
 * The wake and runner records of the human API (/v1/.../wakes, runners, doctor, usage, the wake
 * settings), declared once here; shared/api-types.ts derives the UI's types from them (`z.output`,
 * types only) and adds what the caller may do with each wake.
 */

export const runnerRecord = z.object({
  host: z.string().optional(),
  preset: z.string().optional(),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().nullable().optional(),
  timeout_ms: z.number().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** false: its owner may not run commands here (allow_runners), so it does not start. */
  enabled: z.boolean().optional(),
  /** Queued mentions of one (agent, room) start as one run (docs/wakes.md "Coalescing"). */
  coalesce: z.boolean().optional(),
  /**
   * What a run may do (docs/worktrees.md "Work policies"): `room` the room's tools only, `edit`
   * also the host's read and edit tools confined to the run's folder, `full` also shell commands
   * inside the host's sandbox; null: `edit` for a run in a task's worktree, else `room`.
   */
  work: z.enum(['room', 'edit', 'full']).nullable().optional(),
});

/** What a run cost, as the host CLI reported it. */
export const wakeUsage = z.object({
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  cache_read_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
  model: z.string().nullable(),
});

export const wakeRecord = z.object({
  wake_id: z.string(),
  plate: z.string(),
  handle: z.string().optional(),
  room: z.string().optional(),
  host: z.string().nullable().optional(),
  trigger: z.string(),
  status: z.string(),
  task_id: z.string().nullable().optional(),
  message_id: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  target: z.string().nullable().optional(),
  instance_id: z.string().nullable().optional(),
  exit_code: z.number().nullable().optional(),
  /** The runner's output tails: only for the agent's own owner, null for others. */
  stdout_tail: z.string().nullable().optional(),
  stderr_tail: z.string().nullable().optional(),
  tool_calls: z.number().nullable().optional(),
  /** Handled without any tool call back to the server: the agent did nothing visible. */
  no_tool_call: z.boolean().optional(),
  /** 0 when a human caused it; one deeper per agent write made while running a wake. */
  chain_depth: z.number().optional(),
  /** A retry (POST /v1/wakes/:id/retry) names the failed wake it repeats. */
  retry_of: z.string().nullable().optional(),
  /** status `merged`: the wake whose run took this one's message. */
  merged_into: z.string().nullable().optional(),
  /** A coalesced run: every message it answers, in order. */
  message_ids: z.array(z.string()).nullable().optional(),
  /** What the run cost, as the host CLI reported it; null when it said nothing. */
  usage: wakeUsage.nullable().optional(),
  created_at: z.string().optional(),
  started_at: z.string().nullable().optional(),
  ended_at: z.string().nullable().optional(),
  /** When a runner's run last printed anything; null before its first output (docs/wakes.md "Live runs"). */
  last_output_at: z.string().nullable().optional(),
  /** A failed wake's cause in one line, masked; quotes the output tails only for the agent's owner (docs/wakes.md "A failed wake's cause"). */
  cause: z.string().nullable().optional(),
  /** A failure that is no fault, as a stable code (docs/wakes.md "A failed wake's cause"): the wake's task moved on before it ran. */
  reason_code: z.enum(['task_gone', 'task_reassigned', 'task_archived', 'task_done', 'task_cancelled']).nullable().optional(),
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

/**
 * Wake statuses: queued, running, handled, failed (a dropped held wake ends failed with reason
 * `dropped`), held (reason `loop_guard` or `budget`: POST /v1/wakes/:id/release or /drop),
 * merged (coalesced into `merged_into`).
 */
export const wakeStatus = z.enum(['queued', 'running', 'handled', 'failed', 'held', 'merged']);

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

/** GET /v1/rooms/:id/wakes (and /v1/agents/:plate/wakes; `?message_id=`, `?task_id=` filter): the newest wakes first, paged by `next_before_seq`. */
export const wakePage = z.object({
  wakes: z.array(wakeRecord),
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
  status: z.string(),
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
