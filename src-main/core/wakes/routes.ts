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
import { listWakes, wakeDto } from './store.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { doctorBody, runnerBody, wakeQuery } from './schemas.js';
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
        input = { preset, command: body.command, cwd: body.cwd, timeout_ms: body.timeout_ms, env: body.env };
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
      return wakePage(
        listWakes(core.db, { plate: a.plate, status: query.status, messageId: query.message_id, taskId: query.task_id, limit: limit + 1, beforeSeq: beforeSeqOf(query) }),
        limit,
      );
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
      return page;
    },
  }),
];
