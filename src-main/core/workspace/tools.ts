import { readWorkspaceForAgentUseCase } from './use-cases.js';

/** read_workspace (workspace/use-cases.ts). */
export const workspaceTools = [readWorkspaceForAgentUseCase.tool];
