/**
 * Shapes of the human API (/v1) as the UI reads them (docs/contract.md). The records of the use
 * cases (rooms, members, messages, tasks, the board) are derived from their zod schemas in
 * shared/schemas/, which the server's tools and routes use (`import type` only: zod stays out of
 * the UI's bundle); the rest are kept here by hand, and the server's own DTOs are checked against
 * them at compile time (test/contract/api-types.check.ts), so the UI and the API cannot drift
 * apart unnoticed.
 */
import type { z } from 'zod';
import type { ScopeName } from './scopes.js';
import type * as Rooms from './schemas/rooms.js';
import type * as Messages from './schemas/messages.js';
import type * as Tasks from './schemas/tasks.js';
import type * as Reservations from './schemas/reservations.js';
import type * as Search from './schemas/search.js';
import type * as Files from './schemas/files.js';
import { TASK_STATUSES, type TaskStatus } from './task-statuses.js';

export type { ScopeName };

export interface Me {
  owner_id: string;
  name: string;
  handle: string;
  plate_prefix: string;
  is_primary: boolean;
  /** May configure runners: the primary owner always, others when it allowed them (docs/security.md). */
  allow_runners?: boolean;
}

export interface Owner {
  owner_id: string;
  name: string;
  handle: string;
  is_primary?: boolean;
  /** May configure runners (commands run as this machine's user); only the primary owner changes it. */
  allow_runners?: boolean;
}

export type Role = z.output<typeof Rooms.roomRole>;
export type TrustMode = z.output<typeof Rooms.trustModeSchema>;

/** A room, with the calling human's role and Trust where the API says them. */
export type Room = z.output<typeof Rooms.humanRoomRecord> & Actions<RoomAction>;

export type HumanMember = z.output<typeof Rooms.humanMember> & Actions<HumanMemberAction>;

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

/** POST /v1/rooms/:id/messages (and the send_message result): the message and one entry per mentioned agent. */
export type PostedMessage = z.output<typeof Messages.sendMessageOutput>;

/** GET /v1/rooms/:id/messages */
export type History = z.output<typeof Messages.readRoomOutput>;

/** The task statuses: one list, in shared/task-statuses.ts (no zod, so the UI may import it). */
export { TASK_STATUSES, type TaskStatus };

/**
 * What the owner calling may do with a record now (docs/contract.md "Allowed actions"): the
 * server's own rules, the same ones it checks when the act is tried. `denied_actions` names
 * the acts the record's state allows but this caller may not, with the reason to show; an act
 * in neither list does not apply now (the UI hides it).
 */
export interface Actions<A extends string> {
  allowed_actions?: A[];
  denied_actions?: Partial<Record<A, string>>;
}

/** The human acts on a task (docs/tasks.md "What you may do with a task"). */
export const TASK_ACTIONS = ['edit', 'reassign', 'cancel', 'release', 'archive', 'retry'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** The human acts on a room itself (docs/contract.md "Allowed actions"). */
export const ROOM_ACTIONS = ['add_human', 'edit_workspace'] as const;
export type RoomAction = (typeof ROOM_ACTIONS)[number];

/** The human acts on a room's members: remove an agent, leave (one's own record) (docs/rooms.md "Members"). */
export const AGENT_MEMBER_ACTIONS = ['remove'] as const;
export type AgentMemberAction = (typeof AGENT_MEMBER_ACTIONS)[number];
export const HUMAN_MEMBER_ACTIONS = ['leave'] as const;
export type HumanMemberAction = (typeof HUMAN_MEMBER_ACTIONS)[number];

/** The human acts on a wake (docs/wakes.md "Acting on a wake"). */
export const WAKE_ACTIONS = ['release', 'drop', 'retry', 'stop'] as const;
export type WakeAction = (typeof WAKE_ACTIONS)[number];

/** The human acts on a room's file, and on a deleted one (docs/files.md "Deleting and restoring"). */
export const FILE_ACTIONS = ['download', 'delete'] as const;
export type FileAction = (typeof FILE_ACTIONS)[number];
export const DELETED_FILE_ACTIONS = ['restore'] as const;
export type DeletedFileAction = (typeof DELETED_FILE_ACTIONS)[number];

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
export interface Board<T = Task> {
  lanes: Array<Lane<T>>;
  done: T[];
  done_total?: number;
  done_next_cursor?: string | null;
  context_version?: number;
  /** Every unarchived task of the room per status, whatever the page (GET /v1/rooms/:id/board only). */
  status_totals?: Partial<Record<TaskStatus, number>>;
}

/** Every owner's Trust in one room (GET /v1/rooms/:id/trust). */
export type OwnerTrust = z.output<typeof Rooms.ownerTrust>;

/** GET /v1/rooms/:id/trust */
export type RoomTrust = z.output<typeof Rooms.roomTrustRecord>;

/** One hit of GET /v1/rooms/:id/search: `snippet` is plain text, `highlights` UTF-16 offsets into it (pairs on the wire). */
export type SearchResult = Omit<z.output<typeof Search.searchResult>, 'highlights'> & { highlights: Array<[number, number]> };

export interface RoomFile extends Actions<FileAction> {
  file_id: string;
  path?: string;
  filename?: string;
  version?: number;
  versions?: Array<{ version: number; file_id?: string; size_bytes?: number; sha256?: string; created_at?: string; status?: string }>;
  content_type?: string;
  size_bytes?: number;
  sha256?: string;
  status?: string;
  quarantined?: boolean;
  kind?: string;
  created_at?: string;
  uploaded_by?: unknown;
}

/** GET /v1/rooms/:id/files: one page of the room's files, by path. */
export interface FilePage {
  files: RoomFile[];
  next_cursor: string | null;
  total: number;
}

/** POST /v1/rooms/:id/files/uploads: the new version, quarantined until its bytes are PUT to `upload_url`. */
export type UploadStart = z.output<typeof Files.shareFileOutput>;

/** GET /v1/rooms/:id/files/:fileId/download: a short-lived link to the bytes. */
export type DownloadLink = z.output<typeof Files.fetchFileOutput>;

/** A deleted file still restorable (GET /v1/rooms/:id/deleted-files → `{files}`). */
export interface DeletedFile extends Actions<DeletedFileAction> {
  file_id: string;
  path: string;
  versions: number;
  deleted_at: string;
  restorable_until: string;
}

export interface Workspace {
  local_path: string | null;
  repo_url: string | null;
  repo_branch: string | null;
  git_token: string | null;
  git_token_set?: boolean;
  configured?: boolean;
  /** A non-admin sees that a workspace is configured, not its details (docs/security.md). */
  details_hidden?: boolean;
}

export interface Agent {
  agent_id: string;
  plate: string;
  name: string;
  handle: string;
  owner: { owner_id: string; name: string };
  scopes: ScopeName[];
  revoked: boolean;
  created_at: string;
  /** On GET /v1/agents and GET /v1/agents/:plate. */
  presence?: Presence;
}

export interface Credential {
  credential_id: string;
  device_id: string;
  device: string;
  purpose: string;
  revoked: boolean;
  created_at: string;
}

export interface McpUrls {
  generic: string;
  'claude-code': string;
  codex: string;
  gemini: string;
  cursor: string;
}

export interface MintedCredential {
  credential_id: string;
  credential: string;
  device_id: string;
  mcp_urls: McpUrls;
}

export interface Runner {
  host?: string;
  preset?: string;
  command?: string;
  args?: string[];
  cwd?: string | null;
  timeout_ms?: number;
  env?: Record<string, string>;
  /** false: its owner may not run commands here (allow_runners), so it does not start. */
  enabled?: boolean;
  /** Queued mentions of one (agent, room) start as one run (docs/wakes.md "Coalescing"). */
  coalesce?: boolean;
}

export interface Wake extends Actions<WakeAction> {
  wake_id: string;
  plate: string;
  handle?: string;
  room?: string;
  host?: string | null;
  trigger: string;
  status: string;
  task_id?: string | null;
  message_id?: string | null;
  reason?: string | null;
  target?: string | null;
  instance_id?: string | null;
  exit_code?: number | null;
  /** The runner's output tails: only for the agent's own owner, null for others. */
  stdout_tail?: string | null;
  stderr_tail?: string | null;
  tool_calls?: number | null;
  /** Handled without any tool call back to the server: the agent did nothing visible. */
  no_tool_call?: boolean;
  /** 0 when a human caused it; one deeper per agent write made while running a wake. */
  chain_depth?: number;
  /** A retry (POST /v1/wakes/:id/retry) names the failed wake it repeats. */
  retry_of?: string | null;
  /** status `merged`: the wake whose run took this one's message. */
  merged_into?: string | null;
  /** A coalesced run: every message it answers, in order. */
  message_ids?: string[] | null;
  /** What the run cost, as the host CLI reported it; null when it said nothing. */
  usage?: WakeUsage | null;
  created_at?: string;
  started_at?: string | null;
  ended_at?: string | null;
}

/** One runner as the server itself would start it (docs/wakes.md "Checking what wakes an agent"). */
export interface RunnerCheck {
  host: string;
  preset: string | null;
  command: string;
  /** The absolute path the server's spawn resolves the command to, under its own PATH and the runner's env. */
  resolved: string | null;
  /** The first line `--version` printed (masked). */
  version: string | null;
  ok: boolean;
  problem: string | null;
  fix: string | null;
}

/** POST /v1/agents/:plate/doctor: what decides whether a mention wakes the agent, checked from the server's environment. */
export interface WakeabilityReport {
  plate: string;
  handle: string;
  /** A live claude-code session that opted in to channels and holds a GET stream. */
  channel_session: boolean;
  runners: RunnerCheck[];
  /** Where a mention of this agent goes now: the first target that can take it. */
  wakes_by: 'channel' | 'runner' | 'inbox';
  reason: string;
  /** For each credential the caller asked about (host configs), whether it is a live credential of this agent. */
  credentials: Array<{ live: boolean }>;
}

/**
 * Wake statuses: queued, running, handled, failed (a dropped held wake ends failed with reason
 * `dropped`), held (reason `loop_guard` or `budget`: POST /v1/wakes/:id/release or /drop),
 * merged (coalesced into `merged_into`).
 */
export type WakeStatus = 'queued' | 'running' | 'handled' | 'failed' | 'held' | 'merged';

export interface WakeUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cost_usd: number | null;
  model: string | null;
}

export interface UsageSums {
  wakes: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number;
}

/** GET /v1/usage?room=&plate=&since=: over the wakes the caller may see. */
export interface UsageSummary {
  totals: UsageSums;
  by_agent: Array<UsageSums & { plate: string }>;
  by_room: Array<UsageSums & { room: string }>;
}

/** GET/PUT /v1/settings/wakes (primary owner): the overnight limits. */
export interface WakeSettings {
  max_chain: number;
  /** Started wakes per agent per hour; 0 = no limit. */
  wake_budget: number;
}

/** GET /v1/rooms/:id/wakes (and /v1/agents/:plate/wakes; `?message_id=`, `?task_id=` filter): the newest wakes first, paged by `next_before_seq`. */
export interface WakePage {
  wakes: Wake[];
  next_cursor: string | null;
  next_before_seq: number | null;
}

/** A runner preset of GET /v1/runner-presets (`{presets}`): a host's command line, ready to use. */
export interface RunnerPreset {
  preset: string;
  host: string;
  command: string;
  args: readonly string[];
}

/** An agent's feedback on one task step (submit_task_feedback). */
export interface TaskFeedback {
  feedback_id: string;
  room: string;
  task_id: string | null;
  plate: string;
  kind: 'task' | 'contract_mismatch';
  outcome: 'clean' | 'issue';
  task_status: string | null;
  error_id: string | null;
  issue: string | null;
  recommended_fix: string | null;
  severity: string | null;
  recurrence: { count: number; recurring: boolean };
  created_at: string;
}

/** An agent's answers to the product questions (submit_product_feedback). */
export interface ProductFeedback {
  feedback_id: string;
  plate: string;
  /** The answers, or the words 'no notes'. */
  answers: Record<string, string> | string;
  created_at: string;
}

/** GET /v1/rooms/:id/feedback */
export interface RoomFeedback {
  room: string;
  task_feedback: TaskFeedback[];
  product_feedback: ProductFeedback[];
}

/** An error report an agent filed with consent (report_error); evidence holds no secrets or contents. */
export interface ErrorReport {
  report_id: string;
  error_id: string;
  plate: string;
  room: string | null;
  task_id: string | null;
  tool: string | null;
  code: string;
  classification: string;
  impact: string | null;
  note: string | null;
  recurrence: { reports: number; recurring: boolean; first_reported_at: string | null };
  created_at: string;
}

/** GET /v1/reports: the reports of the caller's agents and of the rooms they belong to, newest first. */
export interface Reports {
  reports: ErrorReport[];
}

/** A backup of the home (GET /v1/backups `last`, POST /v1/backups). */
export interface BackupSummary {
  path: string;
  kind: 'manual' | 'auto';
  created_at: string;
  blobs: number;
  db_bytes: number;
  blob_bytes: number;
}

/** GET /v1/backups (the primary owner only). */
export interface BackupStatus {
  last: BackupSummary | null;
  running: { kind: string; started_at: string } | null;
  last_error: { at: string; message: string } | null;
  settings: { auto: boolean; every_hours: number; keep: number };
  next_auto_at: string | null;
}

/** POST /v1/ui/login/preview: who a one-time login link signs in as, and whether the page must ask before using it. */
export interface LoginPreview {
  owner: { owner_id: string; name: string; handle: string };
  confirm: boolean;
}

/** POST /v1/owners (the primary owner): the new owner; its token is for the command line, the UI hands out a login link. */
export interface CreatedOwner {
  owner: Owner;
}

/** POST /v1/ui/login: this tab's session token (sent as a header, never a cookie). */
export interface SessionGrant {
  session_token: string;
}

/** POST /v1/events/ticket: a one-use ticket for the event stream's URL. */
export interface EventsTicket {
  ticket: string;
}

/** POST /v1/owners/:id/login-links (and /v1/login-links): a one-time sign-in link. */
export interface LoginLink {
  url: string;
  expires_at: string;
}

/** A path reservation (issue 19): who holds which repository glob, until when, for which task. */
export type Reservation = z.output<typeof Reservations.reservationRecord>;

/** How a reservation ended; a force-release keeps the admin's reason. */
export type ReservationRelease = z.output<typeof Reservations.reservationRelease>;

/** GET /v1/rooms/:id/reservations */
export type RoomReservations = z.output<typeof Reservations.roomReservationsRecord>;

export type Json = Record<string, unknown>;
