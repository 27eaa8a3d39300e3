import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { RUNNER_TIMEOUT_MAX_MS, RUNNER_TIMEOUT_MIN_MS, WORK_POLICIES } from './presets.js';
import { WAKE_STATUSES } from './store.js';
import { MAX_CHAIN_LIMIT, WAKE_BUDGET_LIMIT } from './limits.js';

const timeoutMs = z.number().int().min(RUNNER_TIMEOUT_MIN_MS).max(RUNNER_TIMEOUT_MAX_MS);
const cwd = z.string().min(1).max(4096).refine(isAbsolute, 'must be an absolute path');
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
const presetCommand = z.string().min(1).max(4096).refine(isAbsolute, 'must be an absolute path (the preset\'s own command name is used when it is left out)');
/** What a run may do (docs/worktrees.md "Work policies"); null goes back to the default. */
const work = z.enum(WORK_POLICIES).nullable();
const presetBody = z.strictObject({
  preset: z.string().min(1).max(40),
  command: presetCommand.optional(),
  cwd: cwd.optional(),
  timeout_ms: timeoutMs.optional(),
  env: runnerEnv.optional(),
  keep_env: keepEnv.optional(),
  coalesce: z.boolean().optional(),
  work: work.optional(),
});
const commandBody = z.strictObject({
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(8192)).max(200).optional(),
  cwd: cwd.optional(),
  timeout_ms: timeoutMs.optional(),
  env: runnerEnv.optional(),
  keep_env: keepEnv.optional(),
  coalesce: z.boolean().optional(),
  work: work.optional(),
});

/**
 * PUT /v1/agents/:plate/runners/:host: a preset or a command. The `preset` key says which, and
 * only that form is checked, so an error names the fields of the form meant (a union would
 * answer "invalid input" for a body that fits neither).
 */
export const runnerBody = z.record(z.string(), z.unknown()).transform((body, ctx) => {
  const r = 'preset' in body ? presetBody.safeParse(body) : commandBody.safeParse(body);
  if (r.success) return r.data;
  for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
}).meta({ argNames: [...new Set([...Object.keys(presetBody.shape), ...Object.keys(commandBody.shape)])] });

/** The wake log's page: newest first, `cursor` (or the older `before_seq`) continues after the last wake shown. */
export const wakeQuery = z.object({
  status: z.enum(WAKE_STATUSES).optional(),
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
