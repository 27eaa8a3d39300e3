/** Tools the interface specification promises (section 4). Calling one that the server lacks is a contract mismatch. */
export const SPEC_TOOLS: ReadonlySet<string> = new Set([
  'whoami', 'check_mentions', 'ack_mentions', 'list_rooms', 'read_room', 'list_members', 'send_message',
  'resolve_handle', 'list_instances', 'read_workspace', 'get_room_context', 'create_task', 'update_task',
  'claim_task', 'renew_lease', 'release_task', 'set_status', 'complete_task', 'read_board', 'archive_task',
  'assign_task', 'set_room_consent', 'accept_task', 'reject_task', 'list_pending_consents', 'diagnose_error',
  'report_error', 'get_feedback_consent', 'set_feedback_consent', 'submit_task_feedback', 'submit_product_feedback',
  'write_file', 'read_file', 'list_files', 'delete_file', 'share_file', 'complete_file_upload', 'fetch_file',
]);
