import type { z } from 'zod';
import { handleOfPlate } from '../agents/handles.js';
import type { Core } from '../core.js';
import { AppError, invalid } from '../errors/app-error.js';
import { ownAgent } from '../agents/service.js';
import type { Owner } from '../owners/store.js';
import { isInsideHome } from './secrets.js';
import { deleteRunner, getRunner, putRunner, type RunnerConfig, type RunnerInput } from './runners.js';
import { presetNamed, RUNNER_PRESETS } from './presets.js';
import { workRefusal } from './sandbox.js';
import { HOST_ADAPTERS, hostAdapter } from '../hosts/adapter.js';
import type { runnerBody } from '../../../shared/schemas/wakes.js';
import { dropHeld, enqueueWake, getWake, releaseHeld, type WakeRow } from './store.js';
import { wakePermission, wakeStanding } from './rules.js';
import { transcriptPage, transcriptState } from './transcript-log.js';

/**
 * The humans' use cases on runners and wakes (docs/wakes.md): who may act, the write, and the
 * live events after it. The routes only parse, call and shape.
 */

/**
 * A runner is a command the server runs as this machine's user: only the primary owner, or an
 * owner it allowed (PATCH /v1/owners/:id {allow_runners}), may configure one (docs/security.md).
 */
export function requireRunnerRight(owner: Owner): void {
  if (!owner.allow_runners) {
    throw new AppError(
      'RUNNERS_NOT_ALLOWED',
      "runners run commands as this machine's user: only the primary owner, or an owner it allowed to (on its People page), may configure them; ask the primary owner",
      { reason: 'not_allowed_by_primary_owner' },
    );
  }
}

/** The data home (keys, tokens, the database) is never a runner's working folder, nor anything inside it. */
function checkCwd(home: string, cwd: string | undefined): void {
  if (cwd !== undefined && isInsideHome(home, cwd)) {
    throw invalid('cwd must not be the data home or a folder inside it', 'cwd_in_data_home');
  }
}

/** A host a runner is for, as a path names it. */
export function hostParam(h: string): string {
  // Host names are checked here, against the adapters (hosts/adapter.ts), not by the database.
  if (!hostAdapter(h)) throw invalid(`host must be one of ${HOST_ADAPTERS.map((a) => a.id).join(', ')}`);
  return h;
}

/** Sets the runner of one of the owner's agents for a host: a preset by name, or a command. */
export function saveRunner(core: Core, input: { owner: Owner; plate: string; host: string; runner: z.output<typeof runnerBody> }): RunnerConfig {
  const { owner, runner: body } = input;
  const a = ownAgent(core, owner, input.plate);
  const host = hostParam(input.host);
  requireRunnerRight(owner);
  let runner: RunnerInput;
  if ('preset' in body) {
    const preset = presetNamed(body.preset);
    if (!preset) throw invalid(`preset must be one of: ${Object.keys(RUNNER_PRESETS).join(', ')}`);
    runner = { preset, command: body.command, cwd: body.cwd, timeout_ms: body.timeout_ms, env: body.env, coalesce: body.coalesce, work: body.work };
    // A policy this host cannot keep confined here is refused now, not at the first wake.
    const refused = body.work ? workRefusal(RUNNER_PRESETS[preset], body.work, { ...process.env, ...body.env }) : undefined;
    if (refused) throw invalid(refused, 'work_refused');
  } else {
    runner = body;
  }
  checkCwd(core.config.home, runner.cwd);
  // The env is never shown back (only its names), so a save that leaves it out keeps it: an editor
  // changing the work policy must not wipe the keys the host needs. `env: {}` clears it. `keep_env`
  // names the saved variables to keep beside env's new values (the window's editor sends it).
  const saved = getRunner(core.db, a.plate, host)?.env ?? {};
  if (body.keep_env !== undefined) {
    const kept = Object.fromEntries(body.keep_env.filter((k) => Object.hasOwn(saved, k)).map((k) => [k, saved[k]!]));
    const env = { ...kept, ...(body.env ?? {}) };
    if (Object.keys(env).length > 100) throw invalid('at most 100 environment variables', 'too_many_env');
    runner = { ...runner, env };
  } else if (runner.env === undefined) runner = { ...runner, env: saved };
  const r = putRunner(core.db, a.plate, host, runner);
  core.bus.emit({ type: 'runners.changed', owners: [owner.owner_id] });
  core.bus.emit({ type: 'wakes.changed', owners: [owner.owner_id] });
  return r;
}

/** Removes the runner of one of the owner's agents for a host. */
export function removeRunner(core: Core, input: { owner: Owner; plate: string; host: string }): void {
  const a = ownAgent(core, input.owner, input.plate);
  if (!deleteRunner(core.db, a.plate, hostParam(input.host))) throw new AppError('NOT_FOUND', 'no runner configured for this agent and host');
  core.bus.emit({ type: 'runners.changed', owners: [input.owner.owner_id] });
}

/**
 * A wake a human acts on (release, drop, retry): the agent's owner or an admin of the wake's
 * room (wakes/rules.ts, the rule the records' allowed_actions list). Another member of the room
 * learns it may not (403); anyone else does not learn the wake exists (404), as for the wake log.
 */
function actionableWake(core: Core, owner: Owner, id: string): WakeRow {
  const w = getWake(core.db, id);
  if (!w) throw new AppError('NOT_FOUND', 'wake not found');
  const who = wakeStanding(core.db, w, owner.owner_id);
  if (wakePermission(who).ok) return w;
  if (who.role === 'member') {
    throw new AppError('FORBIDDEN', "only the agent's owner or an admin of the room may act on its wakes", { reason: 'not_owner_or_admin', roomId: w.room_id });
  }
  throw new AppError('NOT_FOUND', 'wake not found');
}

/** A wake only its agent's owner or an admin of its room may stop: anyone else is told it does not exist. */
function stoppableWake(core: Core, owner: Owner, id: string): WakeRow {
  const w = getWake(core.db, id);
  if (w && wakePermission(wakeStanding(core.db, w, owner.owner_id)).ok) return w;
  throw new AppError('NOT_FOUND', 'wake not found');
}

function notHeld(w: WakeRow): AppError {
  return new AppError('CONFLICT', `the wake is ${w.status}, not held: only a held wake can be released or dropped`, {
    reason: 'not_held',
    details: { status: w.status },
  });
}

/** Lets a held wake run; the wake as it is now. */
export function releaseWake(core: Core, input: { owner: Owner; wakeId: string }): WakeRow {
  const w = actionableWake(core, input.owner, input.wakeId);
  if (!releaseHeld(core.db, w.id, input.owner.owner_id)) throw notHeld(getWake(core.db, w.id) ?? w);
  core.bus.emit({ type: 'wakes.changed', room: w.room_id });
  return getWake(core.db, w.id)!;
}

/** Drops a held wake; the wake as it is now. */
export function dropWake(core: Core, input: { owner: Owner; wakeId: string }): WakeRow {
  const w = actionableWake(core, input.owner, input.wakeId);
  if (!dropHeld(core.db, w.id, input.owner.owner_id)) throw notHeld(getWake(core.db, w.id) ?? w);
  core.bus.emit({ type: 'wakes.changed', room: w.room_id });
  return getWake(core.db, w.id)!;
}

/** A stalled (or any running) wake: fail it and kill its runner's process group; requeue is its retry. */
export function stopWake(core: Core, input: { owner: Owner; wakeId: string }): WakeRow {
  const w = stoppableWake(core, input.owner, input.wakeId);
  const reason = `stopped by ${input.owner.name}`;
  // The dispatcher fails the wake, kills its run if it has one, and tells the windows.
  const stopped = core.services.dispatcher.stopRun(w, reason);
  if (!stopped) {
    const now = getWake(core.db, w.id) ?? w;
    throw new AppError('CONFLICT', `the wake is ${now.status}: only a running wake can be stopped`, { reason: 'not_running', details: { status: now.status } });
  }
  return getWake(core.db, w.id)!;
}

/**
 * GET /v1/wakes/:id/transcript (docs/wakes.md "Live runs"): a run's transcript is its output,
 * so like the output tails it is its agent's owner's to read; another member of the room learns
 * it may not (403), anyone else that there is no such wake (404).
 */
export function readTranscript(core: Core, input: { owner: Owner; wakeId: string; after: number; limit: number }) {
  const w = getWake(core.db, input.wakeId);
  if (!w) throw new AppError('NOT_FOUND', 'wake not found');
  const who = wakeStanding(core.db, w, input.owner.owner_id);
  if (who.agentOwner !== input.owner.owner_id) {
    if (who.role) throw new AppError('FORBIDDEN', "a run's transcript is its output: only the agent's owner may read it", { reason: 'not_agent_owner', roomId: w.room_id });
    throw new AppError('NOT_FOUND', 'wake not found');
  }
  const rows = transcriptPage(core.db, w.id, input.after, input.limit + 1);
  const page = rows.slice(0, input.limit);
  const state = transcriptState(core.db, w.id);
  const handle = handleOfPlate(core.db, w.plate);
  return {
    wake_id: w.id,
    status: w.status,
    plate: w.plate,
    ...(handle !== undefined ? { handle } : {}),
    events: page.map((r) => ({ seq: r.seq, at: new Date(r.at).toISOString(), kind: r.kind, ...(r.tool ? { tool: r.tool } : {}), summary: r.summary })),
    next_after: rows.length > input.limit ? page[page.length - 1]!.seq : null,
    dropped: state.dropped,
    last_output_at: state.last_output_at === null ? null : new Date(state.last_output_at).toISOString(),
  };
}

/** Queues the one retry of a failed wake; the new wake. */
export function retryWake(core: Core, input: { owner: Owner; wakeId: string }): WakeRow {
  const w = actionableWake(core, input.owner, input.wakeId);
  if (w.status !== 'failed') {
    throw new AppError('CONFLICT', `the wake is ${w.status}: only a failed wake can be retried`, { reason: 'not_failed', details: { status: w.status } });
  }
  // One retry per failed wake: the event key makes a second (or a concurrent) one a conflict, not a second run.
  const id = enqueueWake(core.db, {
    plate: w.plate,
    roomId: w.room_id,
    trigger: w.trigger,
    taskId: w.task_id ?? undefined,
    messageId: w.message_id ?? undefined,
    content: w.content,
    eventKey: `retry:${w.id}`,
    actorOwnerId: input.owner.owner_id,
    chainDepth: w.chain_depth,
    retryOf: w.id,
  });
  if (!id) throw new AppError('CONFLICT', 'this wake was already retried', { reason: 'already_retried' });
  core.bus.emit({ type: 'wakes.changed', room: w.room_id });
  return getWake(core.db, id)!;
}
