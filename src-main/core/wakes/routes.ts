import type { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { AppError, invalid } from '../errors/app-error.js';
import { ownAgent } from '../agents/routes.js';
import { getAgentByPlate } from '../agents/store.js';
import { isMcpHost } from '../../../shared/hosts.js';
import type { Owner } from '../owners/store.js';
import { isInsideHome } from './secrets.js';
import { deleteRunner, getRunner, putRunner, runnerDto, runnersOf, type RunnerInput } from './runners.js';
import { presetNamed, RUNNER_PRESETS } from './presets.js';
import { dropHeld, enqueueWake, finishWake, getWake, listWakes, releaseHeld, usageSummary, wakeDto, type WakeRow } from './store.js';
import { wakePermission, wakeStanding, withWakeActions } from './rules.js';
import type { Core } from '../core.js';
import { setWakeLimits, wakeLimits } from './limits.js';
import { dispatcherOf } from './dispatcher.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { doctorBody, runnerBody, usageQuery, wakeQuery, wakeSettingsBody } from './schemas.js';
import { wakeability } from './doctor.js';

/**
 * A runner is a command the server runs as this machine's user: only the primary owner, or an
 * owner it allowed (PATCH /v1/owners/:id {allow_runners}), may configure one (docs/security.md).
 */
function requireRunnerRight(owner: Owner): void {
  if (!owner.allow_runners) {
    throw new AppError(
      'RUNNERS_NOT_ALLOWED',
      "runners run commands as this machine's user: only the primary owner, or an owner it allowed (allow_runners), may configure them; ask the primary owner",
      { reason: 'not_allowed_by_primary_owner' },
    );
  }
}

/** A runner of an owner without the right stays listed, marked as not running (`enabled: false`). */
function withRight<T extends object>(owner: Owner, dto: T): T & { enabled: boolean } {
  return { ...dto, enabled: owner.allow_runners };
}

/** The data home (keys, tokens, the database) is never a runner's working folder, nor anything inside it. */
function checkCwd(home: string, cwd: string | undefined): void {
  if (cwd !== undefined && isInsideHome(home, cwd)) {
    throw invalid('cwd must not be the data home or a folder inside it', 'cwd_in_data_home');
  }
}

function hostParam(h: string): string {
  if (!isMcpHost(h)) throw invalid(`host must be one of ${Object.values(RUNNER_PRESETS).map((p) => p.host).join(', ')}`);
  return h;
}

const isSeqKey = (k: unknown[]): k is [number] => k.length === 1 && Number.isSafeInteger(k[0]);

/** Newest first, keyset on seq: `cursor` (or the older `before_seq`) continues after the last wake shown. */
function beforeSeqOf(q: z.infer<typeof wakeQuery>): number | undefined {
  return q.cursor !== undefined ? decodeCursor(q.cursor, isSeqKey)[0] : q.before_seq;
}

export function wakePage(rows: ReturnType<typeof listWakes>, limit: number) {
  // One row past the page tells whether another page follows (no empty last page).
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page[page.length - 1]!.seq : null;
  return { wakes: page.map(wakeDto), next_cursor: last === null ? null : encodeCursor([last]), next_before_seq: last };
}

/**
 * A wake a human acts on (release, drop, retry): the agent's owner or an admin of the wake's
 * room. Another member of the room learns it may not (403); anyone else does not learn the
 * wake exists (404), as for the wake log.
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

function sinceMs(since: string | undefined): number | undefined {
  return since === undefined ? undefined : Date.parse(since);
}

/** The human API of wakes: runners per agent and host, and the wake log (docs/wakes.md). */
export const wakeRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/runner-presets',
    handler: () => ({ presets: Object.entries(RUNNER_PRESETS).map(([name, p]) => ({ preset: name, host: p.host, command: p.command, args: p.args })) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate/runners',
    handler: ({ core, owner, params }) => ({
      runners: runnersOf(core.db, ownAgent(core, owner, params.plate).plate).map((r) => withRight(owner, runnerDto(r))),
    }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/agents/:plate/runners/:host',
    body: runnerBody,
    handler: ({ core, owner, params }, { body }) => {
      const a = ownAgent(core, owner, params.plate);
      const host = hostParam(params.host);
      requireRunnerRight(owner);
      let input: RunnerInput;
      if ('preset' in body) {
        const preset = presetNamed(body.preset);
        if (!preset) throw invalid(`preset must be one of: ${Object.keys(RUNNER_PRESETS).join(', ')}`);
        input = { preset, command: body.command, cwd: body.cwd, timeout_ms: body.timeout_ms, env: body.env, coalesce: body.coalesce };
      } else {
        input = body;
      }
      checkCwd(core.config.home, input.cwd);
      const r = putRunner(core.db, a.plate, host, input);
      core.bus.emit({ type: 'runners.changed', owners: [owner.owner_id] });
      core.bus.emit({ type: 'wakes.changed', owners: [owner.owner_id] });
      return runnerDto(r);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate/runners/:host',
    handler: ({ core, owner, params }) => {
      const a = ownAgent(core, owner, params.plate);
      const r = getRunner(core.db, a.plate, hostParam(params.host));
      if (!r) throw new AppError('NOT_FOUND', 'no runner configured for this agent and host');
      return withRight(owner, runnerDto(r));
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/agents/:plate/runners/:host',
    handler: ({ core, owner, params }) => {
      const a = ownAgent(core, owner, params.plate);
      if (!deleteRunner(core.db, a.plate, hostParam(params.host))) throw new AppError('NOT_FOUND', 'no runner configured for this agent and host');
      core.bus.emit({ type: 'runners.changed', owners: [owner.owner_id] });
      return { deleted: true };
    },
  }),
  defineRoute({
    // `agent-rooms doctor`: what decides whether a mention wakes this agent, checked from the
    // server's own environment (it runs the runner's command with --version, so it needs the runner right).
    method: 'POST',
    path: '/v1/agents/:plate/doctor',
    body: doctorBody,
    handler: async ({ core, owner, params }, { body }) => {
      const a = ownAgent(core, owner, params.plate);
      requireRunnerRight(owner);
      return wakeability(core, a, body.credentials ?? []);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate/wakes',
    query: wakeQuery,
    handler: ({ core, owner, params }, { query }) => {
      const a = ownAgent(core, owner, params.plate);
      const limit = query.limit ?? 100;
      const page = wakePage(
        listWakes(core.db, { plate: a.plate, status: query.status, messageId: query.message_id, taskId: query.task_id, limit: limit + 1, beforeSeq: beforeSeqOf(query) }),
        limit,
      );
      return { ...page, wakes: withWakeActions(core.db, owner.owner_id, page.wakes) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/wakes',
    room: 'member',
    query: wakeQuery,
    handler: ({ core, owner, room }, { query }) => {
      const limit = query.limit ?? 100;
      const page = wakePage(
        listWakes(core.db, { roomId: room.id, status: query.status, messageId: query.message_id, taskId: query.task_id, limit: limit + 1, beforeSeq: beforeSeqOf(query) }),
        limit,
      );
      // A runner's output is its owner's to read; other humans of a cross-owner room see the outcome only.
      const owners = new Map<string, string | undefined>();
      const ownerOf = (plate: string) => {
        if (!owners.has(plate)) owners.set(plate, getAgentByPlate(core.db, plate)?.owner_id);
        return owners.get(plate);
      };
      for (const w of page.wakes) if (ownerOf(w.plate) !== owner.owner_id) w.stdout_tail = w.stderr_tail = null;
      return { ...page, wakes: withWakeActions(core.db, owner.owner_id, page.wakes) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/release',
    handler: ({ core, owner, params }) => {
      const w = actionableWake(core, owner, params.id);
      if (!releaseHeld(core.db, w.id, owner.owner_id)) throw notHeld(getWake(core.db, w.id) ?? w);
      core.bus.emit({ type: 'wakes.changed', room: w.room_id });
      return withWakeActions(core.db, owner.owner_id, [wakeDto(getWake(core.db, w.id)!)])[0];
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/drop',
    handler: ({ core, owner, params }) => {
      const w = actionableWake(core, owner, params.id);
      if (!dropHeld(core.db, w.id, owner.owner_id)) throw notHeld(getWake(core.db, w.id) ?? w);
      core.bus.emit({ type: 'wakes.changed', room: w.room_id });
      return withWakeActions(core.db, owner.owner_id, [wakeDto(getWake(core.db, w.id)!)])[0];
    },
  }),
  defineRoute({
    // A stalled (or any running) wake: fail it and kill its runner's process group; requeue is its retry.
    method: 'POST',
    path: '/v1/wakes/:id/stop',
    handler: ({ core, owner, params }) => {
      const w = stoppableWake(core, owner, params.id);
      const reason = `stopped by ${owner.name}`;
      const d = dispatcherOf(core);
      const stopped = d ? d.stopRun(w, reason) : finishWake(core.db, w.id, 'failed', reason);
      if (!stopped) {
        const now = getWake(core.db, w.id) ?? w;
        throw new AppError('CONFLICT', `the wake is ${now.status}: only a running wake can be stopped`, { reason: 'not_running', details: { status: now.status } });
      }
      if (!d) core.bus.emit({ type: 'wakes.changed', room: w.room_id });
      return withWakeActions(core.db, owner.owner_id, [wakeDto(getWake(core.db, w.id)!)])[0];
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/retry',
    handler: ({ core, owner, params }) => {
      const w = actionableWake(core, owner, params.id);
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
        actorOwnerId: owner.owner_id,
        chainDepth: w.chain_depth,
        retryOf: w.id,
      });
      if (!id) throw new AppError('CONFLICT', 'this wake was already retried', { reason: 'already_retried' });
      core.bus.emit({ type: 'wakes.changed', room: w.room_id });
      return withWakeActions(core.db, owner.owner_id, [wakeDto(getWake(core.db, id)!)])[0];
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage',
    query: usageQuery,
    handler: ({ core, owner }, { query }) => usageSummary(core.db, owner.owner_id, { roomId: query.room, plate: query.plate, since: sinceMs(query.since) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/settings/wakes',
    auth: 'primary',
    notPrimary: 'only the primary owner may read or change the wake limits of this server',
    handler: ({ core }) => wakeLimits(core),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/settings/wakes',
    auth: 'primary',
    notPrimary: 'only the primary owner may read or change the wake limits of this server',
    body: wakeSettingsBody,
    handler: ({ core }, { body }) => {
      const next = setWakeLimits(core, body);
      // Held wakes stay held until a human releases them; queued ones meet the new limits at their start.
      dispatcherOf(core)?.kick(true);
      return next;
    },
  }),
];
