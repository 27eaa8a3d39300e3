/**
 * The acts a /v1 record may list in `allowed_actions` and `denied_actions`, per record
 * (docs/contract.md "Allowed actions"); no zod, so the window may import them at run time.
 */

/** The human acts on a task (docs/tasks.md "What you may do with a task"). */
export const TASK_ACTIONS = ['edit', 'reassign', 'cancel', 'release', 'archive', 'retry', 'merge'] as const;
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

/** The human acts on a room's file, and on a deleted one (docs/files.md "What you may do with a file"). */
export const FILE_ACTIONS = ['download', 'delete'] as const;
export type FileAction = (typeof FILE_ACTIONS)[number];
export const DELETED_FILE_ACTIONS = ['restore'] as const;
export type DeletedFileAction = (typeof DELETED_FILE_ACTIONS)[number];

