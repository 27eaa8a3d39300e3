import type { z } from 'zod';
import type { Db } from '../db/open.js';
import { defineUseCase } from '../usecase/define.js';
import { AppError } from '../errors/app-error.js';
import { ownAgent } from '../agents/service.js';
import type { Owner } from '../owners/store.js';
import { contracts } from '../../../shared/contracts/index.js';
import type { wakeQuery } from '../../../shared/schemas/wakes.js';
import { getRunner, runnerDto, runnersOf } from './runners.js';
import { RUNNER_PRESETS } from './presets.js';
import { listWakes, usageSummary, wakeDto } from './store.js';
import { wakeFor, wakesFor } from './present.js';
import { dropWake, hostParam, readTranscript, releaseWake, removeRunner, requireRunnerRight, retryWake, saveRunner, stopWake } from './service.js';
import { setWakeLimits, wakeLimits } from './limits.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { wakeability, worktreeDoctor } from './doctor.js';

/**
 * The humans' use cases of wakes (docs/wakes.md): runners per agent and host, the doctor, the
 * wake logs and the acts on a wake, a run's transcript, usage and the wake limits. Their wire
 * faces are shared/contracts/wakes.ts; agents have no tool among them.
 */

/** A runner of an owner without the right stays listed, marked as not running (`enabled: false`). */
function withRight<T extends object>(owner: Owner, dto: T): T & { enabled: boolean } {
  return { ...dto, enabled: owner.allow_runners };
}

const isSeqKey = (k: unknown[]): k is [number] => k.length === 1 && Number.isSafeInteger(k[0]);

/** Newest first, keyset on seq: `cursor` (or the older `before_seq`) continues after the last wake shown. */
function beforeSeqOf(q: z.output<typeof wakeQuery>): number | undefined {
  return q.cursor !== undefined ? decodeCursor(q.cursor, isSeqKey)[0] : q.before_seq;
}

/** One page of a wake log as `viewer` may see it: one row past the page tells whether another page follows (no empty last page). */
function wakePage(db: Db, viewer: string, rows: ReturnType<typeof listWakes>, limit: number) {
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page[page.length - 1]!.seq : null;
  // A runner's output is its owner's to read; other humans of a cross-owner room see the outcome only (wakes/present.ts).
  return { wakes: wakesFor(db, viewer, page.map(wakeDto)), next_cursor: last === null ? null : encodeCursor([last]), next_before_seq: last };
}

function sinceMs(since: string | undefined): number | undefined {
  return since === undefined ? undefined : Date.parse(since);
}

export const listPresetsUseCase = defineUseCase({
  route: { contract: contracts.wakes.presets },
  handler: () => ({ presets: Object.entries(RUNNER_PRESETS).map(([name, p]) => ({ preset: name, host: p.host, command: p.command, args: p.args })) }),
});

export const listRunnersUseCase = defineUseCase({
  route: { contract: contracts.wakes.runners },
  handler: ({ core, caller }, { params }) => ({
    runners: runnersOf(core.db, ownAgent(core, caller.owner, params.plate).plate).map((r) => withRight(caller.owner, runnerDto(r))),
  }),
});

export const saveRunnerUseCase = defineUseCase({
  route: { contract: contracts.wakes.saveRunner },
  handler: ({ core, caller }, { params, body }) => runnerDto(saveRunner(core, { owner: caller.owner, plate: params.plate, host: params.host, runner: body })),
});

export const readRunnerUseCase = defineUseCase({
  route: { contract: contracts.wakes.runner },
  handler: ({ core, caller }, { params }) => {
    const a = ownAgent(core, caller.owner, params.plate);
    const r = getRunner(core.db, a.plate, hostParam(params.host));
    if (!r) throw new AppError('NOT_FOUND', 'no runner configured for this agent and host');
    return withRight(caller.owner, runnerDto(r));
  },
});

export const removeRunnerUseCase = defineUseCase({
  route: { contract: contracts.wakes.removeRunner },
  handler: ({ core, caller }, { params }) => {
    removeRunner(core, { owner: caller.owner, plate: params.plate, host: params.host });
    return { deleted: true as const };
  },
});

/**
 * `agent-rooms doctor`: what decides whether a mention wakes this agent, checked from the
 * server's own environment (it runs the runner's command with --version, so it needs the runner right).
 */
export const doctorUseCase = defineUseCase({
  route: { contract: contracts.wakes.doctor },
  handler: async ({ core, caller }, { params, body }) => {
    const a = ownAgent(core, caller.owner, params.plate);
    requireRunnerRight(caller.owner);
    return wakeability(core, a, body.credentials ?? []);
  },
});

/** `agent-rooms doctor`: git, the worktrees folder and its orphans, and what edit and full can do here. */
export const worktreeDoctorUseCase = defineUseCase({
  route: { contract: contracts.wakes.worktreeDoctor },
  handler: ({ core, caller }) => worktreeDoctor(core, caller.owner.is_primary),
});

export const agentWakesUseCase = defineUseCase({
  route: { contract: contracts.wakes.agentLog },
  handler: ({ core, caller }, { params, query }) => {
    const a = ownAgent(core, caller.owner, params.plate);
    const limit = query.limit ?? 100;
    const rows = listWakes(core.db, { plate: a.plate, status: query.status, messageId: query.message_id, taskId: query.task_id, limit: limit + 1, beforeSeq: beforeSeqOf(query) });
    return wakePage(core.db, caller.ownerId, rows, limit);
  },
});

export const roomWakesUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.wakes.roomLog },
  handler: ({ core, caller }, { params, query }) => {
    const limit = query.limit ?? 100;
    const rows = listWakes(core.db, { roomId: params.id, status: query.status, messageId: query.message_id, taskId: query.task_id, limit: limit + 1, beforeSeq: beforeSeqOf(query) });
    return wakePage(core.db, caller.ownerId, rows, limit);
  },
});

export const releaseWakeUseCase = defineUseCase({
  route: { contract: contracts.wakes.release },
  handler: ({ core, caller }, { params }) => wakeFor(core.db, caller.ownerId, releaseWake(core, { owner: caller.owner, wakeId: params.id })),
});

export const dropWakeUseCase = defineUseCase({
  route: { contract: contracts.wakes.drop },
  handler: ({ core, caller }, { params }) => wakeFor(core.db, caller.ownerId, dropWake(core, { owner: caller.owner, wakeId: params.id })),
});

/** A stalled (or any running) wake: fail it and kill its runner's process group; requeue is its retry. */
export const stopWakeUseCase = defineUseCase({
  route: { contract: contracts.wakes.stop },
  handler: ({ core, caller }, { params }) => wakeFor(core.db, caller.ownerId, stopWake(core, { owner: caller.owner, wakeId: params.id })),
});

export const retryWakeUseCase = defineUseCase({
  route: { contract: contracts.wakes.retry },
  handler: ({ core, caller }, { params }) => wakeFor(core.db, caller.ownerId, retryWake(core, { owner: caller.owner, wakeId: params.id })),
});

export const transcriptUseCase = defineUseCase({
  route: { contract: contracts.wakes.transcript },
  handler: ({ core, caller }, { params, query }) => readTranscript(core, { owner: caller.owner, wakeId: params.id, after: query.after ?? 0, limit: query.limit ?? 200 }),
});

export const usageUseCase = defineUseCase({
  route: { contract: contracts.wakes.usage },
  handler: ({ core, caller }, { query }) => usageSummary(core.db, caller.ownerId, { roomId: query.room, plate: query.plate, since: sinceMs(query.since) }),
});

const NOT_PRIMARY = 'only the primary owner may read or change the wake limits of this server';

export const wakeLimitsUseCase = defineUseCase({
  route: { contract: contracts.wakes.limits, notPrimary: NOT_PRIMARY },
  handler: ({ core }) => wakeLimits(core),
});

export const setWakeLimitsUseCase = defineUseCase({
  route: { contract: contracts.wakes.setLimits, notPrimary: NOT_PRIMARY },
  handler: ({ core }, { body }) => {
    const next = setWakeLimits(core, body);
    // Held wakes stay held until a human releases them; queued ones meet the new limits at their start.
    core.services.dispatcher.kick(true);
    return next;
  },
});
