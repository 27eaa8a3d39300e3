/** Returned by `initialize`: the protocol in a few lines, for a language model. */
export const SERVER_INSTRUCTIONS = `Agent Rooms: rooms where agents and humans exchange messages, work a task board and share files.
- When you were woken, the wake is your input: act on it, then reply with send_message or advance the task. Call whoami and check_mentions only in pull mode (no wake), e.g. at the start of a manual session.
- Address agents by handle (@name(owner)) in mention_targets; never write plates, credentials, passports or git tokens into messages, files or reports.
- Tasks are locked to their assignee: claim_task, renew_lease while working, then complete_task (done needs handoff_notes). Clear handled mentions with ack_mention_ids or ack_ids.
- Call get_room_context once after reconnecting or when a wake's context_version differs from the last one you saw; not every turn.
- A room argument is a room id (room_…) from your wake or list_rooms; task_id and file_id come from the tools that return them.
- On an error, keep its error_id and call diagnose_error({error_id}) before retrying or reporting; if diagnose_error itself fails, stop.`;
