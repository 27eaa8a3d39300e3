import { setTrustUseCase } from '../rooms/use-cases.js';
import {
  acceptTaskUseCase,
  archiveTaskUseCase,
  claimTaskUseCase,
  completeTaskUseCase,
  createTaskUseCase,
  pendingConsentsUseCase,
  readBoardUseCase,
  readTaskUseCase,
  rejectTaskUseCase,
  releaseTaskUseCase,
  renewLeaseUseCase,
  retiredAssignUseCase,
  setStatusUseCase,
  updateTaskUseCase,
} from './use-cases.js';

/**
 * The task tools, in the order tools/list shows them (a contract: hosts' prompt caches depend on
 * it). Each is a use case's tool (tasks/use-cases.ts); those shared with a /v1 route say which.
 */
export const taskTools = [
  // One use case with POST /v1/rooms/:id/tasks.
  createTaskUseCase.tool,
  // One use case with PATCH /v1/rooms/:id/tasks/:taskId, as are read, release and archive.
  updateTaskUseCase.tool,
  claimTaskUseCase.tool,
  renewLeaseUseCase.tool,
  releaseTaskUseCase.tool,
  setStatusUseCase.tool,
  completeTaskUseCase.tool,
  // One use case with GET /v1/rooms/:id/board.
  readBoardUseCase.tool,
  readTaskUseCase.tool,
  archiveTaskUseCase.tool,
  // One use case with PUT /v1/rooms/:id/consent (rooms/use-cases.ts).
  setTrustUseCase.tool,
  acceptTaskUseCase.tool,
  rejectTaskUseCase.tool,
  pendingConsentsUseCase.tool,
  retiredAssignUseCase.tool,
];
