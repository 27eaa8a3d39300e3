/**
 * Claude Code (docs/hosts.md "Claude Code"): `~/.claude.json` holds the connection, `claude -p`
 * runs headless with the room's server given on its command line (the credential expanded by
 * Claude Code from the environment), its stream-json output read for the transcript and usage.
 */
import { join } from 'node:path';
import { hostInfo } from '../../../shared/hosts.js';
import type { HostAdapter } from './adapter.js';
import { bearerOf, getAt, homeOf, outputFormatIn, readJsonLoose, recordOf, refusalWords, writePlanEntry } from './files.js';

const info = hostInfo('claude-code')!;

const CLAUDE_MCP_CONFIG = JSON.stringify({ mcpServers: { '{server}': { type: 'http', url: '${AGENT_ROOMS_MCP_URL}' } } });

/** Claude Code's user config (`$CLAUDE_CONFIG_DIR/.claude.json` when set). */
function configFile(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, '.claude.json') : join(homeOf(env), '.claude.json');
}

/** A tool of the room's server as Claude Code names it: `mcp__<server>__<tool>`, or the server itself. */
const isRoomTool = (name: unknown, server: string) => typeof name === 'string' && (name === `mcp__${server}` || name.startsWith(`mcp__${server}__`));

export const claudeCodeAdapter: HostAdapter = {
  ...info,
  version: { min: '2.1.0', checked: '2.1.330', re: /(\d+\.\d+\.\d+)/ },
  // --strict-mcp-config: the run sees the room's server under its run credential only, not a
  // same-named entry from the user's settings; --allowedTools names that one server.
  // --output-format stream-json (which needs --verbose with -p): the result event carries the
  // run's usage and cost (usage.ts reads it, docs/wakes.md "Usage").
  presetDef: {
    host: 'claude-code',
    command: 'claude',
    args: ['-p', '--output-format', 'stream-json', '--verbose', '--mcp-config', CLAUDE_MCP_CONFIG, '--strict-mcp-config', '--allowedTools', 'mcp__{server}', '--append-system-prompt', '{wake_instructions}'],
    // acceptEdits approves Read/Write/Edit inside the working folder only (outside it they are
    // refused headless); naming them in --allowedTools instead would allow them on any path.
    // Bash is denied for edit: acceptEdits would otherwise approve commands like `touch` in the folder.
    work: {
      at: 1,
      edit: ['--permission-mode', 'acceptEdits', '--disallowedTools', 'Bash'],
      // failIfUnavailable: without it Claude Code warns and runs Bash unsandboxed when bwrap is missing.
      full: [
        '--permission-mode',
        'acceptEdits',
        '--settings',
        '{"sandbox":{"enabled":true,"failIfUnavailable":true,"autoAllowBashIfSandboxed":true,"allowUnsandboxedCommands":false}}',
      ],
      fullSandbox: { commands: ['bwrap', 'socat'], platforms: ['linux', 'darwin'] },
    },
  },
  connectEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
  async register({ plan, env, tools }) {
    const file = configFile(env);
    writePlanEntry({ plan, tools }, file);
    return undefined;
  },
  configEntry(server, _plate, env) {
    const file = configFile(env);
    const e = getAt(readJsonLoose(file), ['mcpServers', server]);
    return e ? { file, credential: bearerOf(e) } : undefined;
  },
  streamFormat(args, preset) {
    return preset || outputFormatIn(args, false) === 'stream-json' ? 'claude-stream-json' : 'text';
  },
  toolsRefused(o, server) {
    // A permission rule of the user's (a deny, or a mode that asks) refused the room's tool: a
    // `system` permission event as it happens, and the result's list at the end.
    if (o.type === 'system' && typeof o.subtype === 'string' && /permission/i.test(o.subtype) && isRoomTool(o.tool_name, server)) {
      return refusalWords(o.message ?? o.decision_reason ?? `permission denied: ${String(o.tool_name)}`);
    }
    if (o.type === 'result' && Array.isArray(o.permission_denials)) {
      const d = o.permission_denials.map(recordOf).find((r) => r && isRoomTool(r.tool_name, server));
      if (d) return refusalWords(`permission denied: ${String(d.tool_name)}`);
    }
    return undefined;
  },
  quirks: [
    'MCP tools are deferred (tool search): the model loads a schema with ToolSearch before calling it.',
    '`claude -p` never sends DELETE for its session: the server closes a run\'s sessions when it ends.',
    'After a 401/403 the server name lands in ~/.claude/mcp-needs-auth-cache.json (hence one server name per agent).',
  ],
};
