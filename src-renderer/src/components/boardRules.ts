/**
 * Which human board actions the rules allow, so the UI can hide or disable the rest with a
 * reason. The server checks again; these mirror docs/contract.md "Tasks" and the tasks service.
 */
import type { BoardTask, Members, Room, Task } from '../types';

export type Allowed = { ok: true } | { ok: false; reason: string };
const yes: Allowed = { ok: true };

function ownerOfAssignee(task: BoardTask | Task, members?: Members): string | undefined {
  return members?.agents.find((a) => a.plate === task.assignee)?.owner.owner_id;
}

export function canReassign(room: Room, meId: string, members: Members | undefined, task: BoardTask | Task): Allowed | null {
  if (task.status === 'done' || task.status === 'cancelled') return null; // finished: nothing to reassign
  if (room.cross_owner) return room.role === 'admin' ? yes : { ok: false, reason: 'In a cross-owner room only a room admin may reassign.' };
  const owners = [...new Set((members?.agents ?? []).map((a) => a.owner.owner_id))];
  if (owners.length === 1) return owners[0] === meId ? yes : { ok: false, reason: 'Only the owner of this room’s agents may reassign here.' };
  return room.role === 'admin' ? yes : { ok: false, reason: 'Only a room admin may reassign here.' };
}

export function canCancel(room: Room, meId: string, members: Members | undefined, task: BoardTask | Task): Allowed | null {
  if (task.status === 'done' || task.status === 'cancelled') return null; // finished: nothing to cancel
  if (room.role === 'admin' || ownerOfAssignee(task, members) === meId) return yes;
  return { ok: false, reason: 'Only a room admin or the assignee’s owner may cancel.' };
}

export function canRelease(room: Room, task: BoardTask | Task): Allowed | null {
  if (task.status !== 'doing' || !task.lease?.instance_id) return null; // nothing to release: hidden
  return room.role === 'admin' ? yes : { ok: false, reason: 'Only a room admin may force-release a lease.' };
}

export function canArchive(room: Room, meId: string, members: Members | undefined, task: BoardTask | Task): Allowed | null {
  if (!['done', 'failed', 'cancelled'].includes(task.status) || task.archived) return null; // not finished: hidden
  if (room.role === 'admin' || ownerOfAssignee(task, members) === meId) return yes;
  return { ok: false, reason: 'Only a room admin, the assignee’s owner or the task’s creator may archive.' };
}

/** Title, detail and order of an unfinished task: a room admin, the assignee's owner (or its creator, which the server also allows). */
export function canEdit(room: Room, meId: string, members: Members | undefined, task: BoardTask | Task): Allowed | null {
  if (task.status === 'done' || task.status === 'cancelled' || task.archived) return null; // finished: read-only
  if (room.role === 'admin' || ownerOfAssignee(task, members) === meId) return yes;
  return { ok: false, reason: 'Only a room admin, the assignee’s owner or the task’s creator may edit this task.' };
}
