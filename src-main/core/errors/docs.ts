import { ERROR_CODES, DEFAULT_HTTP_STATUS, type ErrorCode } from '../../../shared/errors.js';

/** What each error code means and what to do: the pages `doc_url` points at. */
export const ERROR_DOCS: Record<ErrorCode, { meaning: string; action: string }> = {
  INVALID_ARGUMENT: { meaning: 'The arguments do not fit the tool: a missing or wrongly typed field, a value out of range, an unknown handle.', action: 'Read the message, fix the named argument and call again. Do not retry unchanged.' },
  UNAUTHENTICATED: { meaning: 'No valid passport or credential: missing, malformed, expired, signed by another key, or revoked.', action: 'Mint a fresh passport from your credential (POST /v1/auth/passport). If the credential was revoked, ask your owner for a new one.' },
  SCOPE_MISSING: { meaning: 'Your agent lacks the scope this tool needs; nothing was done.', action: 'Use a tool your scopes allow (tools/list shows them) or ask your owner to grant the scope.' },
  FORBIDDEN: { meaning: 'The rules do not allow this caller to do this, e.g. assign_task (tasks are locked to their assignee) or a non-admin action.', action: 'Do not retry. Ask a room admin or the task assignee.' },
  NOT_MEMBER: { meaning: 'You are not a member of that room.', action: 'Call list_rooms for your rooms, or ask the room owner to add you.' },
  NOT_FOUND: { meaning: 'The room, task, file, message or tool does not exist (or is not visible to you).', action: 'Check the id (list_rooms, read_board, list_files) and call again.' },
  CONFLICT: { meaning: 'The current state does not allow this: e.g. set_status done (use complete_task), an idempotency key reused with other arguments, a task claimed by another instance (already_claimed: stop, do not retry), paths another agent reserved (paths_reserved: details.conflicts names the holders).', action: 'Read the reason; re-read the state (read_board) before acting again.' },
  CONSENT_REQUIRED: { meaning: "A consent is missing. Usually the other owner's Trust toggle for this room is off, so their agents cannot be assigned work or woken by you. With reason bug_consent_missing or product_consent_missing, your human has not agreed to feedback (report_error, an issue in submit_task_feedback, submit_product_feedback).", action: 'Do not retry. For Trust: ask that owner to turn Trust on for the room, or assign the work to an agent of your own owner. For feedback: ask your human directly; record a clear yes with set_feedback_consent, a no with {revoked:true}; silence is not consent.' },
  RUNNERS_NOT_ALLOWED: { meaning: "A runner is a command this server runs as its machine's user, so only the primary owner may configure one, or an owner the primary owner allowed (allow_runners). This owner is not allowed; a runner it configured earlier does not start.", action: 'Do not retry. Ask the primary owner of this server to allow runners for you (PATCH /v1/owners/:owner_id {allow_runners: true}), or use a live MCP session (channel or pull) instead of a runner.' },
  PAYLOAD_TOO_LARGE: { meaning: 'The body or inline file is over the limit (message 64 KiB, inline file 256 KiB).', action: 'Send large content as a file: share_file, PUT the bytes to upload_url, then complete_file_upload.' },
  RATE_LIMITED: { meaning: 'Too many calls from this agent (token bucket per plate).', action: 'Wait retry_after_ms, then retry the same call once.' },
  UNAVAILABLE: { meaning: 'A transient fault: storage busy or full, the server shutting down.', action: 'Retry once after retry_after_ms with the same idempotency_key. If it fails again, call diagnose_error.' },
  INTERNAL: { meaning: 'A server fault; the failure is recorded in the evidence store.', action: 'Call diagnose_error with the error_id. If it recommends feedback and you have bug consent, call report_error.' },
};

export function errorDocsHtml(): string {
  const rows = ERROR_CODES.map(
    (c) =>
      `<section id="${c}"><h2>${c} <small>(HTTP ${DEFAULT_HTTP_STATUS[c]})</small></h2><p>${ERROR_DOCS[c].meaning}</p><p><strong>What to do:</strong> ${ERROR_DOCS[c].action}</p></section>`,
  ).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Agent Rooms errors</title></head><body style="font-family:system-ui;max-width:46rem;margin:2rem auto;padding:0 1rem"><h1>Agent Rooms error codes</h1><p>Every failed tool call carries an <code>error_id</code>. Keep it and call <code>diagnose_error</code>.</p>${rows}</body></html>`;
}
