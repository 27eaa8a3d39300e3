import type { IncomingMessage } from 'node:http';
import type { Db } from './db/open.js';
import type { PassportService } from './auth/passports.js';
import type { EventBus } from './bus.js';
import type { RateLimiter } from './ratelimit.js';
import type { SessionRegistry } from './sessions.js';
import type { SigningKey } from './auth/keys.js';
import type { LoopCount } from './util/repeat.js';
import type { AgentIdentity, Owner } from './auth/callers.js';
import type { Presence, PushResult, TaskChanges } from '../../shared/api-types.js';
import type { z } from 'zod';
import type { worktreeRecord } from '../../shared/schemas/tasks.js';

export interface CoreConfig {
  home: string;
  /** Idle MCP sessions are closed after this long without a request. */
  sessionIdleMs: number;
  /** Caps on live MCP sessions and on `initialize` (docs/security.md, item 10). */
  mcpSessionLimits: McpSessionLimits;
  log: (line: string) => void;
  /** `serve --max-chain` / `--wake-budget`: win over the home's settings (docs/wakes.md). */
  wakeLimits?: { maxChain?: number; wakeBudget?: number };
  /** `--worktrees DIR`: where task worktrees live (docs/worktrees.md); outside the home and every repository. */
  worktreesDir: string;
}

export interface McpSessionLimits {
  /** Live sessions per credential; a new one evicts that credential's least recently used. */
  perCredential: number;
  /** Live sessions in all; a new one evicts the least recently used of the owner holding the most (sessions.ts enforceCaps). */
  total: number;
  /** `initialize` per credential: a token bucket (0 per second turns it off). */
  initializePerSecond: number;
  initializeBurst: number;
}

export const DEFAULT_MCP_SESSION_LIMITS: McpSessionLimits = { perCredential: 64, total: 1000, initializePerSecond: 1, initializeBurst: 20 };

/** Everything a service function, tool or route may use; one per running core. */
export interface Core {
  db: Db;
  config: CoreConfig;
  signingKey: SigningKey;
  passports: PassportService;
  bus: EventBus;
  rateLimiter: RateLimiter;
  sessions: SessionRegistry;
  /** `http://127.0.0.1:PORT`, known once the server listens. */
  baseUrl: string;
  /** What a capability asks of one above it (or of the composition root): given at construction, all required. */
  ports: CorePorts;
  /** The long-lived parts capabilities keep their state in (the wake dispatcher, the blob store, …): built by assembleCore, all required. */
  services: CoreServices;
  /**
   * Resolves once every write committed so far is on disk (group commit, db/group-commit.ts):
   * awaited before a write is acknowledged (a tool result, an API response). Instant when nothing
   * was written since the last sync, and under synchronous FULL.
   */
  durable(): Promise<void>;
}

export interface AgentActedEvent {
  plate: string;
  roomId: string;
  sessionId?: string;
  tool: string;
}

export interface TaskEndedEvent {
  roomId: string;
  taskId: string;
  status: 'done' | 'failed' | 'cancelled';
}

/** A message as an inbox item shows it. */
export interface InboxMessage {
  id: string;
  seq: number;
  body: string;
  sender_kind: string;
  sender_plate: string | null;
  sender_owner_id: string;
}

/** What a wake for a task does to the task; each runs inside the dispatcher's transaction. */
export interface TaskWakePort {
  /** Why the wake has nothing left to do (the task was reassigned, archived or finished), if so. */
  staleReason(db: Db, taskId: string, plate: string): string | undefined;
  /** The running receipt: the task goes to doing with this instance's lease; false when it cannot. */
  receiveRunning(db: Db, taskId: string, plate: string, instanceId: string): boolean;
  /** Takes the receipt back from an instance that never took its wake, while it still holds the lease. */
  returnReceipt(db: Db, taskId: string, instanceId: string): boolean;
  /** A runner's lease kept fresh while its process lives (a runner cannot call renew_lease itself). */
  renewRunnerLease(db: Db, taskId: string, instanceId: string, now: number): void;
  /** The lease holder is gone (run ended, session closed): its doing tasks are stale at once; returns the rooms changed. */
  leaseHolderGone(db: Db, instanceId: string, taskId: string | undefined, now: number): string[];
  /** The task's worktree as recorded, with what decides whether a run may use or remove it. */
  worktreeOf(db: Db, taskId: string): TaskWorktreeState | undefined;
  /** Keeps the paths the task's branch changes (overlaps between open tasks); true when they changed. */
  recordChangedPaths(db: Db, taskId: string, paths: readonly string[]): boolean;
  /** Records the task's worktree (or why it has none), or that it was removed. */
  recordWorktree(db: Db, taskId: string, change: { worktree: WorktreeInfo | null; reason: string | null } | { removed: true }): void;
}

/** A task's git worktree (docs/worktrees.md): its folder, its branch, and the base it was made from (shared/schemas/tasks.ts). */
export type WorktreeInfo = z.output<typeof worktreeRecord>;

/** What a run needs to know of its task's worktree, as the tasks capability records it. */
export interface TaskWorktreeState {
  room: string;
  title: string;
  status: string;
  archived: boolean;
  /** Its branch was merged into its base: the worktree goes. */
  merged: boolean;
  worktree: WorktreeInfo | null;
  reason: string | null;
  /** The worktree was removed (merged, cancelled, archived): no run makes it again. */
  removed: boolean;
}

export interface WorktreeRequest {
  /** The workspace folder (the room workspace's local_path). */
  repo: string;
  /** `--worktrees DIR`: a task's folder is `<dir>/<room>/<task>`. */
  worktreesDir: string;
  roomId: string;
  taskId: string;
  title: string;
  /** The workspace's repo_branch, if set; else the repository's current branch is the base. */
  baseBranch: string | null;
  /** What the task recorded, if a run made its worktree before (recreated when its folder is gone). */
  existing: WorktreeInfo | null;
}

export type PreparedWorktree = { worktree: WorktreeInfo; made: 'new' | 'recreated' | 'existing' } | { worktree: null; reason: string };

/** A merge of a task's branch into its base branch in the workspace folder (docs/review.md "Merge"). */
export interface MergeRequest {
  /** The workspace folder: the top of the repository the task's worktree came from. */
  repo: string;
  branch: string;
  baseBranch: string;
  strategy: 'merge' | 'squash';
  message: string;
  author: { name: string; email: string };
}

/** Git, as the worktrees capability does it (wakes, tasks and reservations import no git). */
export interface WorktreePort {
  /** The task's worktree for a run, or why there is none; rejects with git's message when git fails. */
  prepare(req: WorktreeRequest): Promise<PreparedWorktree>;
  /** Commits what a run left uncommitted on the task's branch; the new commit, or null. */
  commitLeftovers(wt: WorktreeInfo, who: { name: string; email: string; message: string }): Promise<string | null>;
  /** Removes the folder and git's record of it (never the branch unless asked). */
  remove(repo: string, wt: WorktreeInfo, opts?: { deleteBranch?: boolean }): Promise<void>;
  /** Every task folder under the worktrees folder (doctor compares them with the tasks). */
  folders(worktreesDir: string): Array<{ room: string; task_id: string; path: string }>;
  /** What the task's branch changed against its merge base, uncommitted changes included, bounded (review). */
  changes(req: { repo: string; worktree: WorktreeInfo }): Promise<TaskChanges>;
  /** Merges a task's branch into its base in the workspace folder, or says why not with the folder as it was. */
  merge(req: MergeRequest): Promise<{ merged: true; commit: string } | { merged: false; reason: string; message: string; paths: string[] }>;
  /** Pushes a task's branch to a remote, the token given to git by askpass only. */
  push(req: { repo: string; remote: string; branch: string; token?: string; base?: string }): Promise<PushResult>;
  /** The server's git: found, and new enough (doctor). */
  checkGit(cwd: string): Promise<{ ok: boolean; version: string | null; min_version: string; problem: string | null }>;
}

/** Who may see what, for the room and task ids stored with evidence (only ids the caller was authorised for). */
export interface EvidenceAccess {
  /** The caller (an agent by plate, else a human by owner id) is a member of the room. */
  isMember(db: Db, roomId: string, caller: { plate?: string; ownerId?: string }): boolean;
  /** The room a task is in. */
  roomOfTask(db: Db, taskId: string): string | undefined;
}

/** A room as the router hands it to a route that declared `room:`: the caller's standing in it. */
export interface RoomStanding {
  id: string;
  name: string;
  role: 'member' | 'admin';
}

/**
 * The ports: how a capability reaches what a capability above it knows, without importing it
 * (the lower one would import the upper one back), and how the transports reach the
 * capabilities. One typed object of required functions, built once in capabilities.ts
 * (CAPABILITY_PORTS) and given to the core at construction; `requirePorts` refuses a core
 * that lacks one (docs/architecture.md "Ports").
 */
export interface CorePorts {
  /** An agent acted in a room (sent a message, completed a task, …): wakes waiting on it are handled (wakes answers). */
  agentActed(core: Core, e: AgentActedEvent): void;
  /** A task reached done, failed or cancelled (after commit): capabilities tied to tasks end their part (reservations answer). */
  taskEnded(core: Core, e: TaskEndedEvent): void;
  /** A task's worktree is no longer needed (cancelled, archived, merged; after commit): it is removed once no run works in it (wakes answers). */
  worktreeRetired(core: Core, e: { roomId: string; taskId: string }): void;
  /** Git for task worktrees (worktrees answers). */
  worktrees: WorktreePort;
  /** An owner's right to run commands changed (after commit): runs of an owner without it end now (wakes answers). */
  runnerRightChanged(core: Core, ownerId: string): void;
  /** What a live instance is working on (the tasks whose lease it holds), for list_instances (tasks answers). */
  workingOn(db: Db, sessionId: string): Array<{ task_id: string; title: string; room: string }>;
  /** Messages by id: those inbox items point at, and the bodies mention wakes start with (messages answers; the inbox and wakes import no messages). */
  inboxMessages(db: Db, ids: readonly string[]): InboxMessage[];
  /** What a task wake does to its task (tasks answers; the wake dispatcher imports no tasks). */
  taskWakes: TaskWakePort;
  /** Room membership and task rooms for evidence (rooms and tasks answer; evidence imports neither). */
  evidenceAccess: EvidenceAccess;
  /** Error ids older than `before` that an error report refers to: evidence retention keeps them (feedback answers). */
  reportedErrorIds(db: Db, before: string): string[];
  /** Since when an agent runs a wake (the oldest running one), for presence (wakes answers). */
  runningWakeSince(db: Db, plate: string): number | undefined;
  /** Can a mention wake this agent with no live session of it (a runner its owner may run), for presence `asleep` (wakes answers). */
  wakeableAsleep(db: Db, plate: string): boolean;
  /** The router's check of a route that declares `room:`: NOT_FOUND for a non-member, FORBIDDEN for a non-admin when admin is needed (rooms answers). */
  humanRoom(core: Core, roomId: string, ownerId: string, need: 'member' | 'admin'): RoomStanding;
  /** The tool registry's check of a tool that declares `room: 'member'`: NOT_FOUND, NOT_MEMBER (rooms answers). */
  agentRoom(core: Core, roomId: string, plate: string): void;
  /** The caller's unacknowledged inbox items, which every tool result carries in `_meta.pending_mentions` (inbox answers). */
  pendingMentions(core: Core, plate: string): number;
  /** Who calls /v1: an owner by token or UI session (owners answers). */
  authenticateOwner(core: Core, req: IncomingMessage, url: URL, port: number): Owner;
  /** Who calls /mcp: an agent by passport or credential (agents answers). */
  authenticateAgent(core: Core, token: string | undefined, audience: string): Promise<AgentIdentity>;
}

/** Every port and, for the ports that are objects, every function of them: what `requirePorts` checks. */
const PORT_SHAPE: { [K in keyof CorePorts]: CorePorts[K] extends (...a: never[]) => unknown ? true : Record<keyof CorePorts[K], true> } = {
  agentActed: true,
  taskEnded: true,
  runnerRightChanged: true,
  workingOn: true,
  inboxMessages: true,
  taskWakes: { staleReason: true, receiveRunning: true, returnReceipt: true, renewRunnerLease: true, leaseHolderGone: true, worktreeOf: true, recordWorktree: true, recordChangedPaths: true },
  worktreeRetired: true,
  worktrees: { prepare: true, commitLeftovers: true, remove: true, folders: true, checkGit: true, changes: true, merge: true, push: true },
  evidenceAccess: { isMember: true, roomOfTask: true },
  reportedErrorIds: true,
  runningWakeSince: true,
  wakeableAsleep: true,
  humanRoom: true,
  agentRoom: true,
  pendingMentions: true,
  authenticateOwner: true,
  authenticateAgent: true,
};

/**
 * The ports, once each is known to be there: a core without one would do nothing where a
 * capability must answer (a reservation outliving its task, a wake never handled), so it
 * refuses to start instead, naming what is missing.
 */
export function requirePorts(ports: CorePorts): CorePorts {
  const missing: string[] = [];
  for (const [name, shape] of Object.entries(PORT_SHAPE)) {
    const port = (ports as unknown as Record<string, unknown> | undefined)?.[name];
    if (shape === true) {
      if (typeof port !== 'function') missing.push(name);
      continue;
    }
    for (const fn of Object.keys(shape)) {
      if (typeof (port as Record<string, unknown> | undefined)?.[fn] !== 'function') missing.push(`${name}.${fn}`);
    }
  }
  if (missing.length) {
    throw new Error(`the core cannot start: missing port(s) ${missing.join(', ')} (capabilities.ts CAPABILITY_PORTS gives every port; docs/architecture.md "Ports")`);
  }
  return ports;
}

/**
 * The services (docs/architecture.md "Services"): the parts of one core that hold state between
 * calls (the wake dispatcher, the blob store, the presigning key, the event hub, …). core.ts
 * imports no capability, so each capability adds its own service to this interface where it
 * defines it (`declare module '../core.js' { interface CoreServices { … } }`); assembleCore
 * builds every one before anything can call, and `requireServices` refuses a core that lacks
 * one, naming it: a missing service is a construction error, never a silent no-op at use.
 */
export interface CoreServices {
  /** How many `repeat` loops this core runs (util/repeat.ts): closing the core stops them all. */
  loops: LoopCount;
}

/** Every service by name: what `requireServices` checks (the type makes the list complete). */
export const SERVICE_NAMES: { [K in keyof CoreServices]: true } = {
  loops: true,
  dispatcher: true,
  wakeLimits: true,
  processRunner: true,
  versionCache: true,
  blobs: true,
  presignKey: true,
  eventHub: true,
  backups: true,
  mintedIdentities: true,
  openStreams: true,
  lastMcpCall: true,
  mcpInitializeLimiter: true,
};

/** The services, once each is known to be there (see CoreServices). */
export function requireServices(services: CoreServices): CoreServices {
  const missing = Object.keys(SERVICE_NAMES).filter((name) => (services as unknown as Record<string, unknown> | undefined)?.[name] == null);
  if (missing.length) {
    throw new Error(`the core cannot start: missing service(s) ${missing.join(', ')} (assemble.ts builds every service; docs/architecture.md "Services")`);
  }
  return services;
}

/** An agent's presence (docs/wakes.md "Liveness"): the UI's own type (shared/api-types.ts). */
export type { Presence };
export const PRESENCE_RECENT_CALL_MS = 60_000;
export const PRESENCE_STALLED_MS = 5 * 60_000;

/**
 * working: a wake running, or a tool call in the last 60 s from a live session; stalled: a
 * running wake with no tool call for 5 minutes; idle: a live MCP session, no recent call;
 * asleep: no live session, but a mention wakes it (a runner its owner may run); offline: no
 * live session and nothing can wake it. Only tool calls count: health checks, pings and open
 * streams never make an agent look busy.
 */
export function agentPresence(core: Core, plate: string, now = Date.now()): Presence {
  const lastCall = core.sessions.lastToolCallOf(plate) ?? 0;
  const since = core.ports.runningWakeSince(core.db, plate);
  if (since !== undefined) return now - Math.max(lastCall, since) > PRESENCE_STALLED_MS ? 'stalled' : 'working';
  if (core.sessions.ofPlate(plate).length === 0) return core.ports.wakeableAsleep(core.db, plate) ? 'asleep' : 'offline';
  return now - lastCall <= PRESENCE_RECENT_CALL_MS ? 'working' : 'idle';
}

export function mcpUrl(core: Core, host?: string): string {
  return host && host !== 'generic' ? `${core.baseUrl}/mcp/${host}` : `${core.baseUrl}/mcp`;
}

/** Tells waiting wakes that this instance acted in the room (handled-on-next-act, docs/contract.md "Wakes"). */
export function notifyActed(core: Core, e: AgentActedEvent): void {
  try {
    core.ports.agentActed(core, e);
  } catch (err) {
    core.config.log(`agentActed port failed: ${(err as Error).message}`);
  }
}

/** Tells the wakes that a task's worktree may go once no run works in it (docs/worktrees.md "Clean-up"). */
export function notifyWorktreeRetired(core: Core, e: { roomId: string; taskId: string }): void {
  try {
    core.ports.worktreeRetired(core, e);
  } catch (err) {
    core.config.log(`worktreeRetired port failed: ${(err as Error).message}`);
  }
}

/** Tells capabilities tied to tasks (path reservations) that a task ended. */
export function notifyTaskEnded(core: Core, e: TaskEndedEvent): void {
  try {
    core.ports.taskEnded(core, e);
  } catch (err) {
    core.config.log(`taskEnded port failed: ${(err as Error).message}`);
  }
}
