/**
 * Compile-time contract between the server's DTOs and the shapes the UI reads
 * (shared/api-types.ts). Type-checked by `npm run lint` (tsconfig.test.json); nothing runs:
 * a server change that the UI's types no longer accept fails the build instead of the UI.
 */
import type * as Api from '../../shared/api-types.js';
import type { MessageRecord, readHistory, sendMessage } from '../../src-main/core/messages/service.js';
import type { TaskRecord } from '../../src-main/core/tasks/store.js';
import type { taskHistory } from '../../src-main/core/tasks/events.js';
import type { TaskActions } from '../../src-main/core/tasks/rules.js';
import type { readBoard, TaskSummary } from '../../src-main/core/tasks/service.js';
import type { RoomDto, listMembers } from '../../src-main/core/rooms/store.js';
import type { instancesOf } from '../../src-main/core/rooms/instances.js';
import type { Owner } from '../../src-main/core/owners/store.js';
import type { roomTrust } from '../../src-main/core/rooms/routes.js';

/** Compiles only when the server's shape `S` is accepted where the UI expects `U`. */
type Accepts<U, S extends U> = [U, S];

export type ApiContract = [
  Accepts<Api.Owner, Owner>,
  Accepts<Api.Room, RoomDto & { role: Api.Role | undefined; trust: Api.TrustMode }>,
  Accepts<Api.HumanMember, ReturnType<typeof listMembers>['humans'][number]>,
  Accepts<Api.AgentMember, ReturnType<typeof listMembers>['agents'][number]>,
  Accepts<Api.Instance, ReturnType<typeof instancesOf>[number]>,
  Accepts<Api.Message, MessageRecord>,
  Accepts<Api.History, ReturnType<typeof readHistory>>,
  Accepts<Api.Task, TaskRecord>,
  Accepts<Api.TaskSummary, TaskSummary>,
  // /v1 task records add what the owner calling may do with them (tasks/rules.ts).
  Accepts<Required<Api.Actions<Api.TaskAction>>, TaskActions>,
  Accepts<Api.Board<Api.Task | Api.TaskSummary>, ReturnType<typeof readBoard>>,
  Accepts<Api.RoomTrust, ReturnType<typeof roomTrust>>,
  // POST /v1/rooms/:id/messages: the message and what became of each mentioned agent.
  Accepts<Api.PostedMessage, ReturnType<typeof sendMessage>>,
  // A task's recorded history (docs/tasks.md "History").
  Accepts<Api.TaskHistoryPage, ReturnType<typeof taskHistory>>,
];
