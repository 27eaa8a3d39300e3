/**
 * Names of a task's worktree (docs/worktrees.md "Where a task's work happens"): the branch
 * `rooms/<task-short>-<slug>` and the folder `<worktrees>/<room>/<task>`. Pure: titles and ids
 * come from users, so what they give is reduced to characters git and every file system take,
 * and nothing a title holds can turn into an option, a path that climbs out, or a bad ref.
 */

export const BRANCH_PREFIX = 'rooms/';
export const SLUG_MAX = 40;

/** The task id's last 8 characters, lower case, letters and digits only. */
export function taskShort(taskId: string): string {
  const tail = taskId.replace(/[^A-Za-z0-9]/g, '').slice(-8).toLowerCase();
  return tail || 'task';
}

/** Up to 40 characters of the title: ASCII letters and digits, runs of anything else as one '-'. */
export function titleSlug(title: string): string {
  const ascii = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const slug = ascii
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, '');
  return slug || 'work';
}

/** `rooms/<task-short>-<slug>`: a valid ref name for any title (git check-ref-format agrees; tested). */
export function branchNameFor(taskId: string, title: string): string {
  return `${BRANCH_PREFIX}${taskShort(taskId)}-${titleSlug(title)}`;
}

/** Ids as folder names: only what the server mints (letters, digits, '_' and '-'); anything else is refused. */
export function safeSegment(id: string): string | undefined {
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : undefined;
}
