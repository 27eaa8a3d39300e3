import {
  archiveTaskUseCase,
  cancelTaskUseCase,
  createTaskUseCase,
  readBoardUseCase,
  readTaskUseCase,
  reassignTaskUseCase,
  releaseTaskUseCase,
  reorderLaneUseCase,
  retryTaskUseCase,
  taskHistoryUseCase,
  updateTaskUseCase,
} from './use-cases.js';

/**
 * The task routes of humans, each a use case's (tasks/use-cases.ts) with its wire face in
 * shared/contracts/tasks.ts. Those shared with the agents' tools: the board, creating, reading,
 * editing, releasing and archiving a task. The history, assigning, cancelling, retrying and a
 * lane's order are the humans' alone; they act on tasks of the room `:id`, which the service
 * checks (a task of another room is "task not found").
 */
export const taskRoutes = [
  readBoardUseCase.route,
  createTaskUseCase.route,
  readTaskUseCase.route,
  taskHistoryUseCase.route,
  updateTaskUseCase.route,
  reassignTaskUseCase.route,
  cancelTaskUseCase.route,
  releaseTaskUseCase.route,
  archiveTaskUseCase.route,
  retryTaskUseCase.route,
  reorderLaneUseCase.route,
];
