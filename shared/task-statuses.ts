/**
 * The task statuses, listed once: the zod schema of shared/schemas/tasks.ts, the UI's type
 * (shared/api-types.ts) and the transition table (src-main/core/tasks/transitions.ts) all take
 * them from here. No zod here, so the UI's bundle can import the list (docs/tasks.md).
 */
export const TASK_STATUSES = ['todo', 'doing', 'blocked', 'done', 'failed', 'cancelled'] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];
