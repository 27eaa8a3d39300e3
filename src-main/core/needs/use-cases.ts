import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { dismissNeedInput } from '../../../shared/schemas/needs.js';
import { invalid } from '../errors/app-error.js';
import { agentPresence } from '../core.js';
import type { Db } from '../db/open.js';
import { withWakeActions } from '../wakes/rules.js';
import { withTaskActions, type ShownTask } from '../tasks/rules.js';
import { invitationsOf } from '../rooms/invitations.js';
import { acknowledgeMentions, dismissedNeeds, dismissNeed, needsYou, restoreNeed, type NeedItem } from './service.js';

/**
 * The Needs you use cases (docs/needs-you.md), each declared once from its contract
 * (usecase/define.ts): needs/routes.ts lists the routes they yield. All are the signed-in
 * human's own: no tool.
 */

/** Each wake and task says what the signed-in human may do with it (its buttons follow). */
function withActions(db: Db, ownerId: string, items: NeedItem[]) {
  // The tasks of one room are annotated together: the room's standing and overlaps are read once, not
  // once per item (200 task items of a room of 10,000 tasks held the loop for over a second).
  type Task = NonNullable<NeedItem['task']>;
  const byRoom = new Map<string, Task[]>();
  for (const i of items) {
    if (!i.task) continue;
    const tasks = byRoom.get(i.task.room);
    if (tasks) tasks.push(i.task);
    else byRoom.set(i.task.room, [i.task]);
  }
  const shown = new Map<Task, ShownTask<Task>>();
  for (const [room, tasks] of byRoom) withTaskActions(db, room, ownerId, tasks).forEach((t, k) => shown.set(tasks[k]!, t));
  // The wakes at once too: each room's role and each agent's owner read once.
  const wakes = items.flatMap((i) => (i.wake ? [i.wake] : []));
  const shownWakes = new Map(withWakeActions(db, ownerId, wakes).map((w, k) => [wakes[k]!, w]));
  // In place, so each item's keys keep their order; an absent wake or task stays absent (undefined is not sent).
  return items.map((i) => ({
    ...i,
    wake: i.wake && shownWakes.get(i.wake),
    task: i.task && shown.get(i.task),
  }));
}

/** "Needs you": what waits on the signed-in human across its rooms, and how many invitations wait. */
export const needsYouUseCase = defineUseCase({
  route: { contract: contracts.needs.list },
  handler: ({ core, caller }, { query }) => {
    const needs = needsYou(core.db, caller.ownerId, {
      room: query.room,
      limit: query.limit ?? 200,
      stalled: (plate) => agentPresence(core, plate) === 'stalled',
    });
    // Invitations wait on the human too: counted here, listed by GET /v1/invitations.
    const invitations = query.room ? 0 : invitationsOf(core.db, caller.ownerId, 0).total;
    return { ...needs, items: withActions(core.db, caller.ownerId, needs.items), invitations };
  },
});

/** The path's kind and ref, checked as the body's are (a bad kind is a 400 with an error_id). */
function kindAndRef(kind: string, ref: string) {
  const r = dismissNeedInput.safeParse({ kind, ref });
  if (!r.success) throw invalid(`kind must be one of ${dismissNeedInput.shape.kind.options.join(', ')}, ref an id`, 'bad_need');
  return r.data;
}

/** Dismissing a Needs you item, and its undo (docs/needs-you.md "Dismissing"): the owner's own, stored. */
export const dismissNeedUseCase = defineUseCase({
  route: { contract: contracts.needs.dismiss },
  handler: ({ core, caller }, { body }) => dismissNeed(core.db, caller.ownerId, body.kind, body.ref),
});

export const restoreNeedUseCase = defineUseCase({
  route: { contract: contracts.needs.restore },
  handler: ({ core, caller }, { params }) => {
    const { kind, ref } = kindAndRef(params.kind, params.ref);
    return restoreNeed(core.db, caller.ownerId, kind, ref);
  },
});

/** The owner read a room up to a message: its mentions there are acknowledged (docs/needs-you.md "What leaves by itself"). */
export const acknowledgeMentionsUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.needs.acknowledge },
  handler: ({ core, caller }, { params, body }) => acknowledgeMentions(core.db, caller.ownerId, params.id, body.seq),
});

/** The Dismissed list: the owner's latest dismissals with the records they name, to restore from. */
export const dismissedNeedsUseCase = defineUseCase({
  route: { contract: contracts.needs.dismissed },
  handler: ({ core, caller }, { query }) => {
    const d = dismissedNeeds(core.db, caller.ownerId, query.limit ?? 50);
    return { ...d, items: withActions(core.db, caller.ownerId, d.items) };
  },
});
