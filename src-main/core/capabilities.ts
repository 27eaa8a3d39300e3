import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core, CorePorts } from './core.js';
import type { StopStep } from './util/repeat.js';
import type { ToolDef } from './mcp/tool.js';
import type { Route } from './http/router.js';
import { checkAgentRoom, humanRole, isAgentMember, requireHumanRoom } from './rooms/store.js';
import { identityTools } from './identity/tools.js';
import { inboxTools } from './inbox/tools.js';
import { pendingMentions } from './inbox/store.js';
import { roomTools } from './rooms/tools.js';
import { messageTools } from './messages/tools.js';
import { messagesForInbox } from './messages/service.js';
import { messageRoutes } from './messages/routes.js';
import { addressingTools } from './addressing/tools.js';
import { ownerRoutes } from './owners/routes.js';
import { authenticateOwner } from './owners/authenticate.js';
import { startUiSessionSweeper, uiAuthRoutes } from './owners/ui-auth.js';
import { agentRoutes } from './agents/routes.js';
import { authenticateAgent } from './agents/authenticate.js';
import { getAgentByPlate } from './agents/store.js';
import { hasRunner } from './wakes/runners.js';
import { mayRunCommands } from './owners/store.js';
import { roomRoutes } from './rooms/routes.js';
import { eventRoutes } from './events/routes.js';
import { fileTools } from './files/tools.js';
import { fileRoutes } from './files/routes.js';
import { handleFileUrl } from './files/http.js';
import { startTrashPurger, sweepBlobs } from './files/service.js';
import { workspaceTools } from './workspace/tools.js';
import { workspaceRoutes } from './workspace/routes.js';
import { feedbackTools } from './feedback/tools.js';
import { feedbackRoutes } from './feedback/routes.js';
import { reportedErrorIdsBefore } from './feedback/reports.js';
import { taskTools } from './tasks/tools.js';
import { taskRoutes } from './tasks/routes.js';
import { getTaskRow, markLeaseHolderGone, recordChangedPaths, recordTaskWorktree, renewRunnerLease, taskWakeStaleReason, taskWorktreeState, tasksHeldBy } from './tasks/store.js';
import { worktreePort } from './worktrees/port.js';
import { retireWorktree } from './wakes/run-workspace.js';
import { receiveRunning, returnReceipt } from './tasks/service.js';
import { wakeRoutes } from './wakes/routes.js';
import { runningWakeSince } from './wakes/store.js';
import { startWakeDispatcher } from './wakes/dispatcher.js';
import { contextTools } from './context/tools.js';
import { contextRoutes } from './context/routes.js';
import { startContextPruner } from './context/service.js';
import { startInstanceEvents } from './ui/live.js';
import { reservationTools } from './reservations/tools.js';
import { reservationRoutes } from './reservations/routes.js';
import { onTaskEnded, startReservationSweeper } from './reservations/service.js';
import { startEvidenceMaintenance } from './evidence/retention.js';
import { searchTools } from './search/tools.js';
import { searchRoutes } from './search/routes.js';
import { startMessageIndexer } from './search/indexer.js';
import { needsRoutes } from './needs/routes.js';
import { reviewRoutes } from './review/routes.js';
import { backupRoutes } from './backup/routes.js';
import { startSnapshots } from './backup/service.js';

/** Every MCP tool, in the order tools/list shows them. A new capability adds its array here. */
export const ALL_TOOLS: ToolDef[] = [...identityTools, ...inboxTools, ...roomTools, ...messageTools, ...addressingTools, ...contextTools, ...fileTools, ...workspaceTools, ...taskTools, ...reservationTools, ...searchTools, ...feedbackTools];

/** Every human API route. */
export const ALL_ROUTES: Route[] = [...ownerRoutes, ...uiAuthRoutes, ...agentRoutes, ...roomRoutes, ...messageRoutes, ...eventRoutes, ...fileRoutes, ...workspaceRoutes, ...taskRoutes, ...feedbackRoutes, ...wakeRoutes, ...contextRoutes, ...reservationRoutes, ...searchRoutes, ...backupRoutes, ...needsRoutes, ...reviewRoutes];

/**
 * The ports (core.ts CorePorts): how a capability reaches what one above it knows, and how the
 * transports (which import no capability) authenticate and check rooms. One object, given to
 * the core at construction (start.ts); where several capabilities answer one port, it is
 * composed here.
 */
export const CAPABILITY_PORTS: CorePorts = {
  // Waiting wakes are handled when their agent acts: the core's dispatcher answers, started or not (docs/architecture.md "Services").
  agentActed: (core, e) => core.services.dispatcher.agentActed(e),
  // Reservations tied to a task end with it; tasks only announce the end (no import of reservations there).
  taskEnded: (core, e) => onTaskEnded(core, e.taskId),
  // A right taken back ends that owner's running runs at once (owners imports no wakes).
  runnerRightChanged: (core) => core.services.dispatcher.enforceRunnerRights(),
  workingOn: tasksHeldBy,
  // check_mentions shows the messages its items point at: messages answers, the inbox imports no messages.
  inboxMessages: messagesForInbox,
  // What a task wake does to its task: the dispatcher asks, so wakes never imports tasks.
  taskWakes: {
    staleReason: taskWakeStaleReason,
    receiveRunning,
    returnReceipt,
    renewRunnerLease,
    leaseHolderGone: markLeaseHolderGone,
    worktreeOf: taskWorktreeState,
    recordWorktree: recordTaskWorktree,
    recordChangedPaths,
  },
  // A cancelled or archived task's worktree goes once no run works in it (wakes knows the runs; tasks imports no wakes).
  worktreeRetired: (core, e) => void retireWorktree(core, e.taskId).catch((err: Error) => core.config.log(`worktree of task ${e.taskId} not removed: ${err.message}`)),
  worktrees: worktreePort,
  // Evidence keeps only the room and task ids its caller may see, and the rows error reports refer to.
  evidenceAccess: {
    isMember: (db, roomId, caller) =>
      caller.plate ? isAgentMember(db, roomId, caller.plate) : caller.ownerId ? humanRole(db, roomId, caller.ownerId) !== undefined : false,
    roomOfTask: (db, taskId) => getTaskRow(db, taskId)?.room_id,
  },
  reportedErrorIds: reportedErrorIdsBefore,
  // Presence asks whether an agent runs a wake: agents, rooms and context import no wakes.
  runningWakeSince,
  // Presence asleep: a runner the agent's owner may run wakes it without a live session (docs/wakes.md "Liveness").
  wakeableAsleep: (db, plate) => {
    const a = getAgentByPlate(db, plate);
    return !!a && a.revoked_at === null && hasRunner(db, plate) && mayRunCommands(db, a.owner_id);
  },
  // The room checks of defineRoute/defineTool and the `_meta.pending_mentions` count (the router and the registry import no capability).
  humanRoom(core, roomId, ownerId, need) {
    const r = requireHumanRoom(core.db, roomId, ownerId, need === 'admin');
    return { id: r.id, name: r.name, role: r.role };
  },
  agentRoom(core, roomId, plate) {
    checkAgentRoom(core.db, roomId, plate);
  },
  pendingMentions: (core, plate) => pendingMentions(core.db, plate),
  // Owners for /v1, agents for /mcp (http and mcp import neither).
  authenticateOwner,
  authenticateAgent,
};

/**
 * A capability's background work, started once the home is known sound. Each returns its stop step;
 * the core runs them in reverse order when it closes, before the database closes.
 */
export type CapabilityStarter = (core: Core) => StopStep;

export const CAPABILITY_STARTERS: CapabilityStarter[] = [
  (core) => {
    const t = setImmediate(() => sweepBlobs(core));
    return () => clearImmediate(t);
  },
  startTrashPurger,
  startWakeDispatcher,
  startContextPruner,
  startInstanceEvents,
  startReservationSweeper,
  startUiSessionSweeper,
  startEvidenceMaintenance,
  startSnapshots,
  startMessageIndexer,
];

/** Handlers for paths outside /v1 and /mcp (e.g. presigned file URLs); true when handled. */
export type RawHandler = (core: Core, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean;
export const RAW_HANDLERS: RawHandler[] = [handleFileUrl];
