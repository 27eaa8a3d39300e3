import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError, invalid } from '../errors/app-error.js';
import { humanRole, requireAgentRoom, requireHumanRoom, touchRoom } from '../rooms/store.js';
import { maskToken, openToken, sealToken } from './crypto.js';
import type { z } from 'zod';
import type { workspaceBody, workspaceRecord } from '../../../shared/schemas/workspace.js';

export interface WorkspaceRow {
  room_id: string;
  local_path: string | null;
  repo_url: string | null;
  repo_branch: string | null;
  git_token_enc: Buffer | null;
  updated_by: string;
  updated_at: number;
  /** Who set local_path: a runner works there only for agents of this owner (docs/security.md). */
  local_path_by: string | null;
}

/** A change: a string sets the field, null clears it, undefined keeps it (PUT /v1/rooms/:id/workspace's body). */
export type WorkspaceUpdate = z.output<typeof workspaceBody>;

/** The workspace as the window reads it (GET /v1/rooms/:id/workspace). */
type WorkspaceView = z.input<typeof workspaceRecord>;

/** A room's workspace, if one is set. */
export function workspaceRow(db: Db, roomId: string): WorkspaceRow | undefined {
  return stmt(db, 'SELECT * FROM room_workspaces WHERE room_id = ?').get(roomId) as WorkspaceRow | undefined;
}

/** The rooms whose workspace has a local folder (guard install offers them). */
export function workspacesWithFolder(db: Db): Array<{ room_id: string; local_path: string }> {
  return stmt(db, "SELECT room_id, local_path FROM room_workspaces WHERE local_path IS NOT NULL AND local_path <> ''").all() as Array<{
    room_id: string;
    local_path: string;
  }>;
}

/** Every stored git token in clear, for masking them in runner output. */
export function storedGitTokens(core: Core): string[] {
  const out: string[] = [];
  for (const r of stmt(core.db, 'SELECT room_id, git_token_enc FROM room_workspaces WHERE git_token_enc IS NOT NULL').all() as Array<{
    room_id: string;
    git_token_enc: Buffer;
  }>) {
    try {
      out.push(openToken(core, r.room_id, r.git_token_enc));
    } catch {
      // a token sealed under another key cannot be printed by anyone either
    }
  }
  return out;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Rules of the fields; messages name the field, never its value. */
function validate(u: WorkspaceUpdate): void {
  if (typeof u.local_path === 'string' && CONTROL.test(u.local_path)) throw invalid('local_path must not contain control characters');
  if (typeof u.repo_url === 'string') {
    let url: URL | undefined;
    try {
      url = new URL(u.repo_url);
    } catch {
      // scp-like git remotes (git@host:owner/repo.git) are not URLs
    }
    if (url && (url.username || url.password)) {
      throw invalid('repo_url must not carry credentials; put the token in git_token, which is stored encrypted', 'credentials_in_url');
    }
    if (CONTROL.test(u.repo_url)) throw invalid('repo_url must not contain control characters');
  }
  if (typeof u.repo_branch === 'string' && (CONTROL.test(u.repo_branch) || /\s|\.\.|[~^:?*[\\]/.test(u.repo_branch))) {
    throw invalid('repo_branch is not a valid git branch name');
  }
  if (typeof u.git_token === 'string' && (u.git_token.length === 0 || CONTROL.test(u.git_token) || /\s/.test(u.git_token))) {
    throw invalid('git_token must be non-empty, without spaces or control characters');
  }
}

/** PUT /v1/rooms/:id/workspace: room admins only; the token is sealed before it is stored. */
export function setWorkspace(core: Core, ownerId: string, roomId: string, u: WorkspaceUpdate) {
  requireHumanRoom(core.db, roomId, ownerId, true);
  validate(u);
  immediate(core.db, () => {
    const cur = workspaceRow(core.db, roomId);
    const pick = <T>(next: T | undefined, prev: T | null | undefined): T | null => (next === undefined ? (prev ?? null) : next);
    const token = u.git_token === undefined ? (cur?.git_token_enc ?? null) : u.git_token === null ? null : sealToken(core, roomId, u.git_token);
    const localPath = pick(u.local_path, cur?.local_path);
    const localPathBy = localPath === null ? null : u.local_path === undefined ? (cur?.local_path_by ?? null) : ownerId;
    stmt(
      core.db,
      `INSERT INTO room_workspaces (room_id, local_path, repo_url, repo_branch, git_token_enc, updated_by, updated_at, local_path_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (room_id) DO UPDATE SET local_path = excluded.local_path, repo_url = excluded.repo_url,
         repo_branch = excluded.repo_branch, git_token_enc = excluded.git_token_enc,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at, local_path_by = excluded.local_path_by`,
    ).run(roomId, localPath, pick(u.repo_url, cur?.repo_url), pick(u.repo_branch, cur?.repo_branch), token, ownerId, Date.now(), localPathBy);
    touchRoom(core.db, roomId, ['workspace']);
  });
  core.bus.emit({ type: 'workspace.changed', room: roomId });
  return maskedWorkspace(core, ownerId, roomId);
}

/**
 * GET /v1/rooms/:id/workspace: any member of the room; the token masked. The same rule as for
 * agents (get_room_context, read_workspace): details for room admins; a non-admin sees that a
 * workspace is configured, and a local path only if it set it itself (docs/security.md, item 8).
 */
export function maskedWorkspace(core: Core, ownerId: string, roomId: string): WorkspaceView {
  requireHumanRoom(core.db, roomId, ownerId);
  const r = workspaceRow(core.db, roomId);
  if (r && humanRole(core.db, roomId, ownerId) !== 'admin') {
    return {
      room: roomId,
      configured: true,
      details_hidden: true,
      local_path: r.local_path_by === ownerId ? r.local_path : null,
      repo_url: null,
      repo_branch: null,
      git_token: null,
      git_token_set: r.git_token_enc !== null,
      updated_at: new Date(r.updated_at).toISOString(),
    };
  }
  let masked: string | null = null;
  if (r?.git_token_enc) {
    try {
      masked = maskToken(openToken(core, roomId, r.git_token_enc));
    } catch {
      masked = '••••';
    }
  }
  return {
    room: roomId,
    configured: r !== undefined,
    details_hidden: false,
    local_path: r?.local_path ?? null,
    repo_url: r?.repo_url ?? null,
    repo_branch: r?.repo_branch ?? null,
    git_token: masked,
    git_token_set: masked !== null,
    updated_at: r ? new Date(r.updated_at).toISOString() : null,
  };
}

/** read_workspace: only for an agent whose owner is an admin of the room; the token in clear. */
export function readWorkspaceForAgent(core: Core, agent: { plate: string; ownerId: string }, roomId: string) {
  requireAgentRoom(core.db, roomId, agent.plate);
  if (humanRole(core.db, roomId, agent.ownerId) !== 'admin') {
    throw new AppError('FORBIDDEN', "read_workspace is for agents whose owner is an admin of the room; ask a room admin", {
      reason: 'not_room_admin',
      roomId,
    });
  }
  const r = workspaceRow(core.db, roomId);
  let token: string | null = null;
  if (r?.git_token_enc) {
    try {
      token = openToken(core, roomId, r.git_token_enc);
    } catch {
      throw new AppError('UNAVAILABLE', 'the stored git token cannot be decrypted (its key changed); ask a room admin to set it again', {
        retryable: false,
        roomId,
      });
    }
  }
  return {
    room: roomId,
    local_path: r?.local_path ?? null,
    repo_url: r?.repo_url ?? null,
    repo_branch: r?.repo_branch ?? null,
    git_token: token,
    note: 'git_token is a git credential: use it only for git, never print or echo it',
  };
}
