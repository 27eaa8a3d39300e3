/**
 * Tool profiles (docs/core.md, "Tool profiles"): `?tools=core|full` on an MCP URL picks which tools
 * `tools/list` shows. `full` (the default) is every advertised tool; `core` is what a woken agent
 * needs. A profile is a listing, not a permission: a tool outside it stays callable by name.
 */
export type ToolProfile = 'core' | 'full';

export const TOOL_PROFILES: readonly ToolProfile[] = ['core', 'full'];

/**
 * What a woken agent needs: messages, mentions, the board and the task lifecycle, context, files read/write, reservations,
 * diagnose_error. Not `whoami` (the wake says who and where the agent is; it stays callable).
 */
export const CORE_TOOLS: ReadonlySet<string> = new Set([
  'check_mentions',
  'list_members',
  'read_room',
  'send_message',
  'get_room_context',
  'list_files',
  'read_file',
  'write_file',
  'read_board',
  'read_task',
  'create_task',
  'update_task',
  'claim_task',
  'renew_lease',
  'release_task',
  'set_status',
  'complete_task',
  'reserve_paths',
  'release_paths',
  'renew_paths',
  'list_reservations',
  'diagnose_error',
]);

/** The profile a URL asks for (absent or empty: `full`); undefined when the value names no profile. */
export function profileOf(url: URL): ToolProfile | undefined {
  const v = (url.searchParams.get('tools') ?? '').trim().toLowerCase();
  if (!v) return 'full';
  return (TOOL_PROFILES as readonly string[]).includes(v) ? (v as ToolProfile) : undefined;
}
