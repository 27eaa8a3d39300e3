import type { Db } from './db/open.js';
import type { PassportService } from './auth/passports.js';
import type { EventBus } from './bus.js';
import type { RateLimiter } from './ratelimit.js';
import type { SessionRegistry } from './sessions.js';
import type { SigningKey } from './auth/keys.js';
import type { Presence } from '../../shared/api-types.js';

export interface CoreConfig {
  home: string;
  /** Idle MCP sessions are closed after this long without a request. */
  sessionIdleMs: number;
  /** Caps on live MCP sessions and on `initialize` (docs/security.md, item 10). */
  mcpSessionLimits: McpSessionLimits;
  log: (line: string) => void;
  /** `serve --max-chain` / `--wake-budget`: win over the home's settings (docs/wakes.md). */
  wakeLimits?: { maxChain?: number; wakeBudget?: number };
}

export interface McpSessionLimits {
  /** Live sessions per credential; a new one evicts that credential's least recently used. */
  perCredential: number;
  /** Live sessions in all; a new one evicts the least recently used of any credential. */
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
  /** Named hooks later capabilities register (e.g. the wake dispatcher). */
  hooks: CoreHooks;
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
export interface TaskWakeHooks {
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
}

/** Who may see what, for the room and task ids stored with evidence (only ids the caller was authorised for). */
export interface EvidenceAccess {
  /** The caller (an agent by plate, else a human by owner id) is a member of the room. */
  isMember(db: Db, roomId: string, caller: { plate?: string; ownerId?: string }): boolean;
  /** The room a task is in. */
  roomOfTask(db: Db, taskId: string): string | undefined;
}

/**
 * Named hooks: how a capability gets what a capability above it knows without importing it
 * (the lower one would import the upper one back). capabilities.ts registers them
 * (CAPABILITY_HOOKS) before the server takes requests; an empty list means nobody answers.
 */
export interface CoreHooks {
  /** An agent acted in a room (sent a message, completed a task, …): wakes waiting on it are handled. */
  agentActed: Array<(e: AgentActedEvent) => void>;
  /** What a live instance is working on (the tasks whose lease it holds), for list_instances. */
  workingOn: Array<(sessionId: string) => Array<{ task_id: string; title: string; room: string }>>;
  /** A task reached done, failed or cancelled (after commit); capabilities tied to tasks end their part. */
  taskEnded: Array<(e: TaskEndedEvent) => void>;
  /** The messages inbox items point at, by id (messages answers; the inbox imports no messages). */
  inboxMessages: Array<(db: Db, ids: readonly string[]) => InboxMessage[]>;
  /** What a task wake does to its task (tasks answers; the wake dispatcher imports no tasks). */
  taskWakes: TaskWakeHooks[];
  /** Room membership and task rooms for evidence (rooms and tasks answer; evidence imports neither). */
  evidenceAccess: EvidenceAccess[];
  /** Error ids older than `before` that an error report refers to: evidence retention keeps them (feedback answers). */
  reportedErrorIds: Array<(db: Db, before: string) => string[]>;
  /** Since when an agent runs a wake (the oldest running one), for presence (wakes answers). */
  runningWakeSince: Array<(db: Db, plate: string) => number | undefined>;
}

/** An agent's presence (docs/wakes.md "Liveness"): the UI's own type (shared/api-types.ts). */
export type { Presence };
export const PRESENCE_RECENT_CALL_MS = 60_000;
export const PRESENCE_STALLED_MS = 5 * 60_000;

/**
 * working: a wake running, or a tool call in the last 60 s from a live session; stalled: a
 * running wake with no tool call for 5 minutes; idle: a live MCP session, no recent call;
 * offline: no live session. Only tool calls count: health checks, pings and open streams
 * never make an agent look busy.
 */
export function agentPresence(core: Core, plate: string, now = Date.now()): Presence {
  const lastCall = core.sessions.lastToolCallOf(plate) ?? 0;
  let since: number | undefined;
  for (const h of core.hooks.runningWakeSince) since ??= h(core.db, plate);
  if (since !== undefined) return now - Math.max(lastCall, since) > PRESENCE_STALLED_MS ? 'stalled' : 'working';
  if (core.sessions.ofPlate(plate).length === 0) return 'offline';
  return now - lastCall <= PRESENCE_RECENT_CALL_MS ? 'working' : 'idle';
}

export function mcpUrl(core: Core, host?: string): string {
  return host && host !== 'generic' ? `${core.baseUrl}/mcp/${host}` : `${core.baseUrl}/mcp`;
}

/** Adds a hook; returns the way to remove it (a capability's stop step). */
export function addHook<F>(hooks: F[], h: F): () => void {
  hooks.push(h);
  return () => {
    const i = hooks.indexOf(h);
    if (i >= 0) hooks.splice(i, 1);
  };
}

/** Tells waiting wakes that this instance acted in the room (handled-on-next-act, docs/contract.md "Wakes"). */
export function notifyActed(core: Core, e: AgentActedEvent): void {
  for (const h of core.hooks.agentActed) {
    try {
      h(e);
    } catch (err) {
      core.config.log(`agentActed hook failed: ${(err as Error).message}`);
    }
  }
}

/** Tells capabilities tied to tasks (path reservations) that a task ended. */
export function notifyTaskEnded(core: Core, e: TaskEndedEvent): void {
  for (const h of core.hooks.taskEnded) {
    try {
      h(e);
    } catch (err) {
      core.config.log(`taskEnded hook failed: ${(err as Error).message}`);
    }
  }
}
