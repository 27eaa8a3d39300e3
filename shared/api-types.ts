/**
 * The window's names for the records of the human API (/v1): each is the answer of a contract
 * (shared/contracts/, `OutputOf<typeof contracts.x.y>`) or the `z.output` of a shared schema,
 * imported as types only, so zod stays out of the UI's bundle (docs/architecture.md "Contracts").
 * Nothing here declares a record shape of its own; the server's record types are the `z.output`
 * of the same schemas, so the two ends cannot drift apart.
 */
import type { z } from 'zod';
import type { ScopeName } from './scopes.js';
import type * as Rooms from './schemas/rooms.js';
import type * as Tasks from './schemas/tasks.js';
import type * as Owners from './schemas/owners.js';
import type * as Wakes from './schemas/wakes.js';
import type * as Feedback from './schemas/feedback.js';
import type * as Backup from './schemas/backup.js';
import type { contracts } from './contracts/index.js';
import type { BodyOf, OutputOf } from './contracts/contract.js';
import type { refusal } from './contracts/acts.js';
import { TASK_STATUSES, type TaskStatus } from './task-statuses.js';

export type { ScopeName };

/** The signed-in owner (contracts.owners.me). */
export type Me = OutputOf<typeof contracts.owners.me>;

/** An owner as either contracts.owners.list (with rights, the primary owner's) or contracts.owners.people (names only) shows it. */
export type Owner = z.output<typeof Owners.ownerRecord>;

export type Role = z.output<typeof Rooms.roomRole>;
export type TrustMode = z.output<typeof Rooms.trustModeSchema>;

/** A room, with the calling human's role and Trust and what it may do there (contracts.rooms.read). */
export type Room = OutputOf<typeof contracts.rooms.read>;

/** Each member with what the caller may do with it, and the room's live instances (contracts.rooms.members; rooms/rules.ts). */
export type Members = OutputOf<typeof contracts.rooms.members>;

/** A human of the members list; on the caller's own record, when `leave` is refused as `last_admin`, `next_admins` names whom it may name (rooms/rules.ts). */
export type HumanMember = Members['humans'][number];

export type AgentMember = Members['agents'][number];

/**
 * An agent's liveness (docs/wakes.md "Liveness"): working (a wake running, or a tool call in the
 * last 60 s), idle (a live MCP session, no recent call), stalled (a running wake with no tool
 * call for 5 minutes), offline (no live session). Health checks and pings never count.
 */
export type Presence = z.output<typeof Rooms.presence>;

export type Instance = Members['instances'][number];

/** A page of a room's messages, oldest first (contracts.messages.history). */
export type History = OutputOf<typeof contracts.messages.history>;

export type Message = History['messages'][number];

export type Mention = Message['mentions'][number];

/** What became of one agent a message mentions (docs/wakes.md "What a mention says"): a wake (null when none was queued), or `inbox` with the reason. */
export type MentionWake = PostedMessage['wakes'][number];
/** Why a mention queued no wake (`MentionWake.reason_code`): `trust_off` is waiting on the agent's owner's Trust. */
export type MentionWakeCode = NonNullable<MentionWake['reason_code']>;

/** A message the caller posted, with one entry per mentioned agent (contracts.messages.post). */
export type PostedMessage = OutputOf<typeof contracts.messages.post>;

/** The task statuses: one list, in shared/task-statuses.ts (no zod, so the UI may import it). */
export { TASK_STATUSES, type TaskStatus };

/**
 * What the owner calling may do with a record now (docs/contract.md "Allowed actions"): the
 * server's own rules, the same ones it checks when the act is tried. `denied_actions` names
 * the acts the record's state allows but this caller may not, each with a stable `code` (keyed
 * on) and the `message` to show; an act in neither list does not apply now (the UI hides it).
 */
export type Actions<A extends string> = { allowed_actions?: A[]; denied_actions?: Partial<Record<A, Refusal>> };

/** Why an act is refused (docs/contract.md "Allowed actions" lists the codes). */
export type Refusal = z.output<typeof refusal>;

export * from './acts.js';

/** The full task record with what the caller may do with it (contracts.tasks.read; every /v1 answer of one task). */
export type Task = OutputOf<typeof contracts.tasks.read>;

/** A room's task board, one page per lane, with each task's acts and the room-wide reassign right (contracts.tasks.board). */
export type Board = OutputOf<typeof contracts.tasks.board>;

/** One lane of a board page; `next_cursor` (with `lane=<assignee>`) reads its next page. */
export type Lane = Board['lanes'][number];

/** A task as a board page carries it: the compact fields always, the rest of the record when `detail=full` was asked. */
export type BoardTask = Board['done'][number];

/** A board task's lease: its holder's instance and handle, whether it went stale (and when it was renewed, with detail=full). */
export type Lease = NonNullable<BoardTask['lease']>;

/** Every owner's Trust in one room (contracts.rooms.trust). */
export type RoomTrust = OutputOf<typeof contracts.rooms.trust>;

export type OwnerTrust = RoomTrust['owners'][number];

/** A room another owner added me to, waiting for Accept or Decline (contracts.rooms.invitations; docs/needs-you.md). */
export type Invitation = OutputOf<typeof contracts.rooms.invitations>['invitations'][number];

/** One item of Needs you (contracts.needs.list; docs/needs-you.md): `kind` and `ref` name it, a dismissal names the same. */
export type NeedItem = OutputOf<typeof contracts.needs.list>['items'][number];

/** One hit of a search (contracts.search.room, .all): `snippet` is plain text, `highlights` [start, end) UTF-16 offsets into it. */
export type SearchResult = OutputOf<typeof contracts.search.all>['results'][number];

/** A room's file with its versions and what the caller may do with it (contracts.files.list). */
export type RoomFile = FilePage['files'][number];

/** One page of the room's files, by path (contracts.files.list). */
export type FilePage = OutputOf<typeof contracts.files.list>;

/** The new version, quarantined until its bytes are PUT to `upload_url` (contracts.files.upload). */
export type UploadStart = OutputOf<typeof contracts.files.upload>;

/** A short-lived link to the bytes (contracts.files.download). */
export type DownloadLink = OutputOf<typeof contracts.files.download>;

/** The room's deleted files still restorable, newest first (contracts.files.deleted). */
export type DeletedFileList = OutputOf<typeof contracts.files.deleted>;

/** A deleted file still restorable, with whether the caller may restore it. */
export type DeletedFile = DeletedFileList['files'][number];

/** A deleted file brought back (contracts.files.restore). */
export type RestoredFile = OutputOf<typeof contracts.files.restore>;

/** A room's workspace as the caller may see it (contracts.workspace.read). */
export type Workspace = OutputOf<typeof contracts.workspace.read>;

/** A change to a room's workspace: a string sets a field, null clears it, absent keeps it (contracts.workspace.update). */
export type WorkspaceEdit = BodyOf<typeof contracts.workspace.update>;

/** One of the caller's agents (contracts.agents.list). */
export type Agent = OutputOf<typeof contracts.agents.list>['agents'][number];

/** A new agent as its creation answers it (contracts.agents.create): who it is, not yet its state. */
export type CreatedAgent = OutputOf<typeof contracts.agents.create>;

/** A credential of an agent's, never its secret (contracts.agents.credentials). */
export type Credential = OutputOf<typeof contracts.agents.credentials>['credentials'][number];

/** A new credential, shown this once (contracts.agents.mint). */
export type MintedCredential = OutputOf<typeof contracts.agents.mint>;

/** The MCP URL of each host, for a connection's configuration. */
export type McpUrls = MintedCredential['mcp_urls'];

/** A runner of one of the caller's agents as GET lists it, with `enabled` (contracts.wakes.runners). */
export type Runner = OutputOf<typeof contracts.wakes.runner>;

/** What a runner save sends: a preset or a command (contracts.wakes.saveRunner's body). */
export type RunnerForm = BodyOf<typeof contracts.wakes.saveRunner>;

/** A wake as a human reads it: with its agent's handle and what the caller may do with it (contracts.wakes.release). */
export type Wake = OutputOf<typeof contracts.wakes.release>;

/** What decides whether a mention wakes the agent, checked from the server's environment (contracts.wakes.doctor). */
export type WakeabilityReport = OutputOf<typeof contracts.wakes.doctor>;

/** One runner as the server itself would start it (docs/wakes.md "Checking what wakes an agent"). */
export type RunnerCheck = WakeabilityReport['runners'][number];

/**
 * Wake statuses: queued, running, handled, failed (a dropped held wake ends failed with reason
 * `dropped`), held (reason `loop_guard` or `budget`: POST /v1/wakes/:id/release or /drop),
 * merged (coalesced into `merged_into`).
 */
export type WakeStatus = z.output<typeof Wakes.wakeStatus>;

export type WakeUsage = z.output<typeof Wakes.wakeUsage>;

export type UsageSums = z.output<typeof Wakes.usageSums>;

/** Usage over the wakes the caller may see (contracts.wakes.usage). */
export type UsageSummary = OutputOf<typeof contracts.wakes.usage>;

/** The overnight limits, the primary owner's (contracts.wakes.limits). */
export type WakeSettings = OutputOf<typeof contracts.wakes.limits>;

/** A wake log's page, newest first (contracts.wakes.roomLog, agentLog). */
export type WakePage = OutputOf<typeof contracts.wakes.roomLog>;

/** One page of a run's transcript (contracts.wakes.transcript; docs/wakes.md "Live runs"). */
export type TranscriptPage = OutputOf<typeof contracts.wakes.transcript>;
export type TranscriptEvent = TranscriptPage['events'][number];
/** What a task's branch changed, or why there is nothing to diff (contracts.review.changes; docs/review.md). */
export type TaskChanges = OutputOf<typeof contracts.review.changes>;
export type ChangedFile = Extract<TaskChanges, { base: unknown }>['files'][number];
/** The recorded changes of a task, oldest first, paged (contracts.tasks.history; docs/tasks.md "History"). */
export type TaskHistoryPage = OutputOf<typeof contracts.tasks.history>;
export type TaskEvent = TaskHistoryPage['events'][number];
export type TaskEventKind = TaskEvent['kind'];
/** Where a task's branch was pushed (contracts.review.push). */
export type PushResult = OutputOf<typeof contracts.review.push>;
/** A review of a task's work as stored (contracts.review.submit; docs/review.md "Reviews"). */
export type Review = OutputOf<typeof contracts.review.submit>;
/** A task's worktree (docs/worktrees.md). */
export type Worktree = z.output<typeof Tasks.worktreeRecord>;
/** A runner's work policy (docs/worktrees.md "Work policies"). */
export type WorkPolicy = z.output<typeof Wakes.workPolicy>;

/** A runner preset: a host's command line, ready to use (contracts.wakes.presets). */
export type RunnerPreset = OutputOf<typeof contracts.wakes.presets>['presets'][number];

/** An agent's feedback on one task step (submit_task_feedback). */
export type TaskFeedback = z.output<typeof Feedback.taskFeedbackRecord>;

/** An agent's answers to the product questions (submit_product_feedback). */
export type ProductFeedback = z.output<typeof Feedback.productFeedbackRecord>;

/** A room's task and product feedback (contracts.feedback.readRoom). */
export type RoomFeedback = OutputOf<typeof contracts.feedback.readRoom>;

/** An error report an agent filed with consent (report_error); evidence holds no secrets or contents. */
export type ErrorReport = z.output<typeof Feedback.errorReportRecord>;

/** The reports of the caller's agents and of the rooms they belong to, newest first (contracts.feedback.listReports). */
export type Reports = OutputOf<typeof contracts.feedback.listReports>;

/** A backup of the home as the window shows it (the status's `last`). */
export type BackupSummary = z.output<typeof Backup.backupSummary>;

/** The backup status (contracts.backup.read, the primary owner only). */
export type BackupStatus = OutputOf<typeof contracts.backup.read>;

/** Who a one-time login link signs in as, and whether the page must ask before using it (contracts.owners.previewLogin). */
export type LoginPreview = OutputOf<typeof contracts.owners.previewLogin>;

/** A one-time sign-in link (contracts.owners.loginLinkFor, .loginLink). */
export type LoginLink = OutputOf<typeof contracts.owners.loginLinkFor>;

/** This tab's session token, sent as a header, never a cookie (contracts.owners.login). */
export type SessionGrant = OutputOf<typeof contracts.owners.login>;

/** One of the owner's window sessions, never its token (contracts.owners.sessions). */
export type UiSession = OutputOf<typeof contracts.owners.sessions>['sessions'][number];

/** The room's reservations, the recent releases and whether the caller may force-release (contracts.reservations.list). */
export type RoomReservations = OutputOf<typeof contracts.reservations.list>;

/** A path reservation (issue 19): who holds which repository glob, until when, for which task. */
export type Reservation = RoomReservations['reservations'][number];

/** How a reservation ended; a force-release keeps the admin's reason (contracts.reservations.release). */
export type ReservationRelease = OutputOf<typeof contracts.reservations.release>;

export type Json = Record<string, unknown>;

/** What became of the mentions of some messages (contracts.wakes.deliveries). */
export type MessageDeliveries = OutputOf<typeof contracts.wakes.deliveries>;
/** A mentioned agent under a message: its status and, when one was queued, its wake with the acts allowed on it (docs/ui.md). */
export type MessageDelivery = MessageDeliveries['messages'][number]['wakes'][number];

/** The test's room and message and what became of the mention (contracts.wakes.startTest; docs/wakes.md "Test wakes"). */
export type TestWakeStarted = OutputOf<typeof contracts.wakes.startTest>;
/** The owner's Test wakes room and its newest wakes (contracts.wakes.tests). */
export type TestWakeList = OutputOf<typeof contracts.wakes.tests>;
