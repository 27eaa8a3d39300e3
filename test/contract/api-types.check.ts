/**
 * Compile-time contract between the server's DTOs and the shapes the UI reads
 * (shared/api-types.ts). Type-checked by `npm run lint` (tsconfig.test.json); nothing runs:
 * a server change that the UI's types no longer accept fails the build instead of the UI.
 */
import type * as Api from '../../shared/api-types.js';
import type { MessageRecord, readHistory, sendMessage } from '../../src-main/core/messages/service.js';
import type { wakeability } from '../../src-main/core/wakes/doctor.js';
import type { TaskRecord } from '../../src-main/core/tasks/store.js';
import type { taskHistory } from '../../src-main/core/tasks/events.js';
import type { usageSummary } from '../../src-main/core/wakes/store.js';
import type { readTranscript } from '../../src-main/core/wakes/service.js';
import type { TaskActions } from '../../src-main/core/tasks/rules.js';
import type { readBoard, TaskSummary } from '../../src-main/core/tasks/service.js';
import type { AgentDto, listCredentials } from '../../src-main/core/agents/store.js';
import type { RoomDto, listMembers } from '../../src-main/core/rooms/store.js';
import type { instancesOf } from '../../src-main/core/rooms/instances.js';
import type { Owner } from '../../src-main/core/owners/store.js';
import type { FileEntry } from '../../src-main/core/files/service.js';
import type { maskedWorkspace } from '../../src-main/core/workspace/store.js';
import type { WakeDto } from '../../src-main/core/wakes/store.js';
import type { runnerDto } from '../../src-main/core/wakes/runners.js';
import type { mcpUrlsOf } from '../../src-main/core/agents/routes.js';
import type { roomReservationsForHuman } from '../../src-main/core/reservations/service.js';
import type { fetchFile, listFilesForHumans, shareFile } from '../../src-main/core/files/service.js';
import type { listDeletedFilesFor } from '../../src-main/core/files/trash.js';
import type { RUNNER_PRESETS } from '../../src-main/core/wakes/presets.js';
import type { taskFeedbackOfRoom } from '../../src-main/core/feedback/task-feedback.js';
import type { productFeedbackOfRoom } from '../../src-main/core/feedback/product.js';
import type { reportsForOwner } from '../../src-main/core/feedback/reports.js';
import type { BackupState } from '../../src-main/core/backup/service.js';
import type { BackupResult } from '../../src-main/core/backup/backup.js';
import type { createLoginLink, LinkPreview } from '../../src-main/core/owners/login.js';
import type { createOwner } from '../../src-main/core/owners/store.js';
import type { wakePage } from '../../src-main/core/wakes/routes.js';
import type { roomTrust } from '../../src-main/core/rooms/routes.js';
import type { sessionGrant } from '../../src-main/core/owners/ui-auth.js';
import type { createEventsTicket } from '../../src-main/core/owners/login.js';

/** Compiles only when the server's shape `S` is accepted where the UI expects `U`. */
type Accepts<U, S extends U> = [U, S];

export type ApiContract = [
  Accepts<Api.Me, Owner>,
  Accepts<Api.Owner, Owner>,
  Accepts<Api.Room, RoomDto & { role: Api.Role | undefined; trust: Api.TrustMode }>,
  Accepts<Api.HumanMember, ReturnType<typeof listMembers>['humans'][number]>,
  Accepts<Api.AgentMember, ReturnType<typeof listMembers>['agents'][number]>,
  Accepts<Api.Instance, ReturnType<typeof instancesOf>[number]>,
  Accepts<Api.Message, MessageRecord>,
  Accepts<Api.History, ReturnType<typeof readHistory>>,
  Accepts<Api.Task, TaskRecord>,
  Accepts<Api.TaskSummary, TaskSummary>,
  // /v1 task records add what the owner calling may do with them (tasks/rules.ts).
  Accepts<Required<Api.Actions<Api.TaskAction>>, TaskActions>,
  Accepts<Api.Board<Api.Task | Api.TaskSummary>, ReturnType<typeof readBoard>>,
  Accepts<Api.RoomFile, FileEntry>,
  Accepts<Api.Workspace, ReturnType<typeof maskedWorkspace>>,
  Accepts<Api.Agent, AgentDto>,
  Accepts<Api.Credential, ReturnType<typeof listCredentials>[number]>,
  Accepts<Api.McpUrls, ReturnType<typeof mcpUrlsOf>>,
  Accepts<Api.Runner, ReturnType<typeof runnerDto>>,
  Accepts<Api.Wake, WakeDto>,
  Accepts<Api.RoomReservations, ReturnType<typeof roomReservationsForHuman>>,
  Accepts<Api.FilePage, ReturnType<typeof listFilesForHumans>>,
  Accepts<Api.UploadStart, ReturnType<typeof shareFile>>,
  Accepts<Api.DownloadLink, ReturnType<typeof fetchFile>>,
  Accepts<Api.DeletedFile, ReturnType<typeof listDeletedFilesFor>[number]>,
  // GET /v1/runner-presets names each preset and adds its definition's fields.
  Accepts<Omit<Api.RunnerPreset, 'preset'>, (typeof RUNNER_PRESETS)[keyof typeof RUNNER_PRESETS]>,
  Accepts<Api.TaskFeedback, ReturnType<typeof taskFeedbackOfRoom>[number]>,
  Accepts<Api.ProductFeedback, ReturnType<typeof productFeedbackOfRoom>[number]>,
  Accepts<Api.ErrorReport, ReturnType<typeof reportsForOwner>[number]>,
  Accepts<Api.BackupStatus, BackupState>,
  Accepts<Api.BackupSummary, BackupResult>,
  Accepts<Api.LoginPreview['owner'], Extract<LinkPreview, { ok: true }>['owner']>,
  Accepts<Api.LoginLink, ReturnType<typeof createLoginLink>>,
  Accepts<Api.CreatedOwner, ReturnType<typeof createOwner>>,
  Accepts<Api.WakePage, ReturnType<typeof wakePage>>,
  Accepts<Api.RoomTrust, ReturnType<typeof roomTrust>>,
  Accepts<Api.SessionGrant, ReturnType<typeof sessionGrant>>,
  Accepts<Api.EventsTicket, ReturnType<typeof createEventsTicket>>,
  // POST /v1/rooms/:id/messages: the message and what became of each mentioned agent.
  Accepts<Api.PostedMessage, ReturnType<typeof sendMessage>>,
  Accepts<Api.WakeabilityReport, Awaited<ReturnType<typeof wakeability>>>,
  // A task's recorded history (docs/tasks.md "History"); usage rows and transcripts with their agent's handle.
  Accepts<Api.TaskHistoryPage, ReturnType<typeof taskHistory>>,
  Accepts<Api.UsageSummary, ReturnType<typeof usageSummary>>,
  Accepts<Api.TranscriptPage, ReturnType<typeof readTranscript>>,
];
