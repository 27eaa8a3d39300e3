/**
 * Shapes of the human API (/v1) as the UI reads them (docs/contract.md), derived from the zod
 * schemas of shared/schemas/ (`z.output`; `import type` only, so zod stays out of the UI's bundle).
 * The records of the use cases (rooms, members, messages, tasks, the board, files, search,
 * reservations) are the schemas the server's tools and routes use; the records of the human-only
 * routes (owners, agents, wakes and runners, feedback, backups) are declared there too, and the
 * server's own DTOs are checked against them at compile time (test/contract/api-types.check.ts),
 * so the UI and the API cannot drift apart unnoticed. What is written here by hand is only how
 * they combine: the allowed actions of a record, and a board's lanes over either task shape.
 */
import type { z } from 'zod';
import type { ScopeName } from './scopes.js';
import type * as Rooms from './schemas/rooms.js';
import type * as Messages from './schemas/messages.js';
import type * as Tasks from './schemas/tasks.js';
import type * as Reservations from './schemas/reservations.js';
import type * as Search from './schemas/search.js';
import type * as Files from './schemas/files.js';
import type * as Owners from './schemas/owners.js';
import type * as Agents from './schemas/agents.js';
import type * as Wakes from './schemas/wakes.js';
import type * as WorkspaceSchemas from './schemas/workspace.js';
import type * as Feedback from './schemas/feedback.js';
import type * as Backup from './schemas/backup.js';
import { TASK_STATUSES, type TaskStatus } from './task-statuses.js';

export type { ScopeName };

export type Me = z.output<typeof Owners.meRecord>;

export type Owner = z.output<typeof Owners.ownerRecord>;

export type Role = z.output<typeof Rooms.roomRole>;
export type TrustMode = z.output<typeof Rooms.trustModeSchema>;

/** A room, with the calling human's role and Trust where the API says them. */
export type Room = z.output<typeof Rooms.humanRoomRecord> & Actions<RoomAction>;

/** A human of GET /v1/rooms/:id/members; on the caller's own record, when `leave` is refused as `last_admin`, `next_admins` names whom it may name (rooms/rules.ts). */
export type HumanMember = z.output<typeof Rooms.humanMember> & Actions<HumanMemberAction> & { next_admins?: string[] };

export type AgentMember = z.output<typeof Rooms.roomMembersRecord>['agents'][number] & Actions<AgentMemberAction>;

/**
 * An agent's liveness (docs/wakes.md "Liveness"): working (a wake running, or a tool call in the
 * last 60 s), idle (a live MCP session, no recent call), stalled (a running wake with no tool
 * call for 5 minutes), offline (no live session). Health checks and pings never count.
 */
export type Presence = z.output<typeof Rooms.presence>;

export type Instance = z.output<typeof Rooms.instanceRecord>;

/** GET /v1/rooms/:id/members: each member with what the caller may do with it (rooms/rules.ts). */
export type Members = Omit<z.output<typeof Rooms.roomMembersRecord>, 'humans' | 'agents'> & { humans: HumanMember[]; agents: AgentMember[] };

export type Mention = z.output<typeof Messages.mention>;

export type Message = z.output<typeof Messages.messageRecord>;

/** What became of one agent a message mentions (docs/wakes.md "What a mention says"): a wake (null when none was queued), or `inbox` with the reason. */
export type MentionWake = z.output<typeof Messages.mentionWake>;
/** Why a mention queued no wake (`MentionWake.reason_code`): `trust_off` is waiting on the agent's owner's Trust. */
export type MentionWakeCode = NonNullable<MentionWake['reason_code']>;

/** POST /v1/rooms/:id/messages (and the send_message result): the message and one entry per mentioned agent. */
export type PostedMessage = z.output<typeof Messages.sendMessageOutput>;

/** GET /v1/rooms/:id/messages */
export type History = z.output<typeof Messages.readRoomOutput>;

/** The task statuses: one list, in shared/task-statuses.ts (no zod, so the UI may import it). */
export { TASK_STATUSES, type TaskStatus };

/**
 * What the owner calling may do with a record now (docs/contract.md "Allowed actions"): the
 * server's own rules, the same ones it checks when the act is tried. `denied_actions` names
 * the acts the record's state allows but this caller may not, each with a stable `code` (keyed
 * on) and the `message` to show; an act in neither list does not apply now (the UI hides it).
 */
export interface Actions<A extends string> {
  allowed_actions?: A[];
  denied_actions?: Partial<Record<A, Refusal>>;
}

/** Why an act is refused (docs/contract.md "Allowed actions" lists the codes). */
export interface Refusal {
  code: string;
  message: string;
}

export * from './acts.js';
import type { TaskAction, RoomAction, HumanMemberAction, AgentMemberAction, WakeAction, FileAction, DeletedFileAction } from './acts.js';

/**
 * The full task record: GET /v1/rooms/:id/tasks/:taskId, the board with detail=full, every task
 * tool's result. Its lease reads like a board task's (the UI shows either the same way).
 */
export type Task = Omit<z.output<typeof Tasks.taskRecord>, 'lease'> & { lease: Lease | null } & Actions<TaskAction>;

/** A task's lease: its holder and when it was renewed (full record) or its holder's handle (board). */
export type Lease = NonNullable<BoardTask['lease']>;

/** The compact task of a board page (the default); `detail=full` or GET …/tasks/:id gives a Task. */
export type TaskSummary = z.output<typeof Tasks.taskSummary> & Actions<TaskAction>;

/** A task as a board page carries it: the compact fields always, the rest of the record when `detail=full` was asked. */
export type BoardTask = z.output<typeof Tasks.boardTask> & Actions<TaskAction>;

/** One lane of a board page; `next_cursor` (with `lane=<assignee>`) reads its next page. */
export interface Lane<T = Task> {
  assignee: string;
  handle: string;
  tasks: T[];
  total?: number;
  next_cursor?: string | null;
}

/** GET /v1/rooms/:id/board: Board (with detail=full) or Board<TaskSummary> (the default). */
export interface Board<T = Task> extends Actions<'reassign'> {
  lanes: Array<Lane<T>>;
  done: T[];
  done_total?: number;
  done_next_cursor?: string | null;
  context_version?: number;
  /** Every unarchived task of the room per status, whatever the page (GET /v1/rooms/:id/board only). */
  status_totals?: Partial<Record<TaskStatus, number>>;
  /** A doing task's lease is stale after this long without a renewal (GET /v1/rooms/:id/board only). */
  lease_stale_after_ms?: number;
}

/** Every owner's Trust in one room (GET /v1/rooms/:id/trust). */
export type OwnerTrust = z.output<typeof Rooms.ownerTrust>;

/** GET /v1/rooms/:id/trust */
export type RoomTrust = z.output<typeof Rooms.roomTrustRecord>;

/** GET /v1/invitations: a room another owner added me to, waiting for Accept or Decline (docs/needs-you.md). */
export type Invitation = z.output<typeof Rooms.invitationRecord>;

/** One hit of GET /v1/rooms/:id/search: `snippet` is plain text, `highlights` UTF-16 offsets into it (pairs on the wire). */
export type SearchResult = Omit<z.output<typeof Search.searchResult>, 'highlights'> & { highlights: Array<[number, number]> };

export type RoomFile = z.output<typeof Files.roomFileRecord> & Actions<FileAction>;

/** GET /v1/rooms/:id/files: one page of the room's files, by path. */
export type FilePage = Omit<z.output<typeof Files.filePageRecord>, 'files'> & { files: RoomFile[] };

/** POST /v1/rooms/:id/files/uploads: the new version, quarantined until its bytes are PUT to `upload_url`. */
export type UploadStart = z.output<typeof Files.shareFileOutput>;

/** GET /v1/rooms/:id/files/:fileId/download: a short-lived link to the bytes. */
export type DownloadLink = z.output<typeof Files.fetchFileOutput>;

/** A deleted file still restorable (GET /v1/rooms/:id/deleted-files → `{files}`). */
export type DeletedFile = z.output<typeof Files.deletedFileRecord> & Actions<DeletedFileAction>;

export type Workspace = z.output<typeof WorkspaceSchemas.workspaceRecord>;

export type Agent = z.output<typeof Agents.agentRecord>;

export type Credential = z.output<typeof Agents.credentialRecord>;

export type McpUrls = z.output<typeof Agents.mcpUrls>;

export type MintedCredential = z.output<typeof Agents.mintedCredential>;

export type Runner = z.output<typeof Wakes.runnerRecord>;

export type Wake = z.output<typeof Wakes.wakeRecord> & Actions<WakeAction>;

/** One runner as the server itself would start it (docs/wakes.md "Checking what wakes an agent"). */
export type RunnerCheck = z.output<typeof Wakes.runnerCheck>;

/** POST /v1/agents/:plate/doctor: what decides whether a mention wakes the agent, checked from the server's environment. */
export type WakeabilityReport = z.output<typeof Wakes.wakeabilityReport>;

/**
 * Wake statuses: queued, running, handled, failed (a dropped held wake ends failed with reason
 * `dropped`), held (reason `loop_guard` or `budget`: POST /v1/wakes/:id/release or /drop),
 * merged (coalesced into `merged_into`).
 */
export type WakeStatus = z.output<typeof Wakes.wakeStatus>;

export type WakeUsage = z.output<typeof Wakes.wakeUsage>;

export type UsageSums = z.output<typeof Wakes.usageSums>;

/** GET /v1/usage?room=&plate=&since=: over the wakes the caller may see. */
export type UsageSummary = z.output<typeof Wakes.usageSummary>;

/** GET/PUT /v1/settings/wakes (primary owner): the overnight limits. */
export type WakeSettings = z.output<typeof Wakes.wakeSettings>;

/** GET /v1/rooms/:id/wakes (and /v1/agents/:plate/wakes; `?message_id=`, `?task_id=` filter): the newest wakes first, paged by `next_before_seq`. */
export type WakePage = Omit<z.output<typeof Wakes.wakePage>, 'wakes'> & { wakes: Wake[] };

/** GET /v1/wakes/:id/transcript: one page of a run's transcript (docs/wakes.md "Live runs"). */
export type TranscriptPage = z.output<typeof Wakes.transcriptPage>;
export type TranscriptEvent = z.output<typeof Wakes.transcriptEvent>;
/** GET /v1/rooms/:id/tasks/:taskId/changes (docs/review.md). */
export type TaskChanges = z.output<typeof Tasks.taskChanges>;
export type ChangedFile = z.output<typeof Tasks.changedFile>;
/** GET /v1/rooms/:id/tasks/:taskId/history (docs/tasks.md "History"): the recorded changes of a task, oldest first, paged. */
export type TaskHistoryPage = z.output<typeof Tasks.taskHistoryPage>;
export type TaskEvent = z.output<typeof Tasks.taskEvent>;
export type TaskEventKind = TaskEvent['kind'];
/** POST /v1/rooms/:id/tasks/:taskId/push. */
export type PushResult = z.output<typeof Tasks.pushResult>;
/** A task's worktree (docs/worktrees.md). */
export type Worktree = z.output<typeof Tasks.worktreeRecord>;
/** A runner's work policy (docs/worktrees.md "Work policies"). */
export type WorkPolicy = 'room' | 'edit' | 'full';

/** A runner preset of GET /v1/runner-presets (`{presets}`): a host's command line, ready to use. */
export type RunnerPreset = z.output<typeof Wakes.runnerPreset>;

/** An agent's feedback on one task step (submit_task_feedback). */
export type TaskFeedback = z.output<typeof Feedback.taskFeedbackRecord>;

/** An agent's answers to the product questions (submit_product_feedback). */
export type ProductFeedback = z.output<typeof Feedback.productFeedbackRecord>;

/** GET /v1/rooms/:id/feedback */
export type RoomFeedback = z.output<typeof Feedback.roomFeedbackRecord>;

/** An error report an agent filed with consent (report_error); evidence holds no secrets or contents. */
export type ErrorReport = z.output<typeof Feedback.errorReportRecord>;

/** GET /v1/reports: the reports of the caller's agents and of the rooms they belong to, newest first. */
export type Reports = z.output<typeof Feedback.reportsRecord>;

/** A backup of the home (GET /v1/backups `last`, POST /v1/backups). */
export type BackupSummary = z.output<typeof Backup.backupSummary>;

/** GET /v1/backups (the primary owner only). */
export type BackupStatus = z.output<typeof Backup.backupStatus>;

/** POST /v1/ui/login/preview: who a one-time login link signs in as, and whether the page must ask before using it. */
export type LoginPreview = z.output<typeof Owners.loginPreview>;

/** POST /v1/owners (the primary owner): the new owner; its token is for the command line, the UI hands out a login link. */
export type CreatedOwner = z.output<typeof Owners.createdOwner>;

/** POST /v1/ui/login: this tab's session token (sent as a header, never a cookie). */
export type SessionGrant = z.output<typeof Owners.sessionGrant>;

/** POST /v1/events/ticket: a one-use ticket for the event stream's URL. */
export type EventsTicket = z.output<typeof Owners.eventsTicket>;

/** POST /v1/owners/:id/login-links (and /v1/login-links): a one-time sign-in link. */
export type LoginLink = z.output<typeof Owners.loginLink>;

/** GET /v1/me/sessions: one of the owner's window sessions (never its token). */
export type UiSession = z.output<typeof Owners.uiSessionRecord>;

/** DELETE /v1/me/sessions/:sessionId, POST /v1/me/sessions/end-others: how many sessions ended. */
export type UiSessionsEnded = z.output<typeof Owners.uiSessionsEnded>;

/** A path reservation (issue 19): who holds which repository glob, until when, for which task. */
export type Reservation = z.output<typeof Reservations.reservationRecord>;

/** How a reservation ended; a force-release keeps the admin's reason. */
export type ReservationRelease = z.output<typeof Reservations.reservationRelease>;

/** GET /v1/rooms/:id/reservations */
export type RoomReservations = z.output<typeof Reservations.roomReservationsRecord>;

export type Json = Record<string, unknown>;

import type * as Deliveries from './schemas/deliveries.js';
/** A mentioned agent under a message: its status and, when one was queued, its wake with the acts allowed on it (docs/ui.md). */
export type MessageDelivery = Omit<z.output<typeof Deliveries.messageDelivery>, 'wake'> & { wake: Wake | null };
export type MessageDeliveries = Omit<z.output<typeof Deliveries.messageDeliveries>, 'messages'> & { messages: Array<{ message_id: string; wakes: MessageDelivery[] }> };

import type * as TestWakes from './schemas/test-wakes.js';
/** POST /v1/test-wakes: the test's room and message and what became of the mention (docs/wakes.md "Test wakes"). */
export type TestWakeStarted = z.output<typeof TestWakes.testWakeStarted>;
/** GET /v1/test-wakes: the owner's Test wakes room and its newest wakes. */
export type TestWakeList = z.output<typeof TestWakes.testWakeList>;
