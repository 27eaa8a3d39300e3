import type { WorktreePort } from '../core.js';
import { checkGit } from './git.js';
import { commitLeftovers, prepareWorktree, removeWorktree, worktreeFolders } from './service.js';
import { taskChanges } from './changes.js';
import { mergeTaskBranch, pushBranch } from './merge.js';

/** The worktrees port (core.ts WorktreePort), as capabilities.ts gives it: every git step the server takes. */
export const worktreePort: WorktreePort = {
  prepare: prepareWorktree,
  commitLeftovers,
  remove: removeWorktree,
  folders: worktreeFolders,
  checkGit,
  changes: (req) => taskChanges(req),
  merge: mergeTaskBranch,
  push: pushBranch,
};
