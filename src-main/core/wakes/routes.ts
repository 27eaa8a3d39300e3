import type { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { ownAgent } from '../agents/service.js';
import type { Owner } from '../owners/store.js';
import { getRunner, runnerDto, runnersOf } from './runners.js';
import { RUNNER_PRESETS } from './presets.js';
import { listWakes, usageSummary, wakeDto } from './store.js';
import { wakeFor, wakesFor } from './present.js';
import { dropWake, hostParam, readTranscript, releaseWake, removeRunner, requireRunnerRight, retryWake, saveRunner, stopWake } from './service.js';
import { setWakeLimits, wakeLimits } from './limits.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { doctorBody, runnerBody, transcriptQuery, usageQuery, wakeQuery, wakeSettingsBody } from './schemas.js';
import { wakeability, worktreeDoctor } from './doctor.js';

/** A runner of an owner without the right stays listed, marked as not running (`enabled: false`). */
function withRight<T extends object>(owner: Owner, dto: T): T & { enabled: boolean } {
  return { ...dto, enabled: owner.allow_runners };
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
      return runnerDto(saveRunner(core, { owner, plate: params.plate, host: params.host, runner: body }));
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
      removeRunner(core, { owner, plate: params.plate, host: params.host });
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
    // `agent-rooms doctor`: git, the worktrees folder and its orphans, and what edit and full can do here.
    method: 'GET',
    path: '/v1/doctor/worktrees',
    handler: ({ core, owner }) => worktreeDoctor(core, owner.is_primary),
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
      return { ...page, wakes: wakesFor(core.db, owner.owner_id, page.wakes) };
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
      // A runner's output is its owner's to read; other humans of a cross-owner room see the outcome only (wakes/present.ts).
      return { ...page, wakes: wakesFor(core.db, owner.owner_id, page.wakes) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/release',
    handler: ({ core, owner, params }) => wakeFor(core.db, owner.owner_id, releaseWake(core, { owner, wakeId: params.id })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/drop',
    handler: ({ core, owner, params }) => wakeFor(core.db, owner.owner_id, dropWake(core, { owner, wakeId: params.id })),
  }),
  defineRoute({
    // A stalled (or any running) wake: fail it and kill its runner's process group; requeue is its retry.
    method: 'POST',
    path: '/v1/wakes/:id/stop',
    handler: ({ core, owner, params }) => wakeFor(core.db, owner.owner_id, stopWake(core, { owner, wakeId: params.id })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/wakes/:id/retry',
    handler: ({ core, owner, params }) => wakeFor(core.db, owner.owner_id, retryWake(core, { owner, wakeId: params.id })),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/wakes/:id/transcript',
    query: transcriptQuery,
    handler: ({ core, owner, params }, { query }) => readTranscript(core, { owner, wakeId: params.id, after: query.after ?? 0, limit: query.limit ?? 200 }),
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
      core.services.dispatcher.kick(true);
      return next;
    },
  }),
];
