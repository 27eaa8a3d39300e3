import { readWorkspaceUseCase, setWorkspaceUseCase } from './use-cases.js';

/** The window's workspace routes (workspace/use-cases.ts, contracts in shared/contracts/workspace.ts). */
export const workspaceRoutes = [readWorkspaceUseCase.route, setWorkspaceUseCase.route];
