/**
 * How each agent host registers the room's MCP server, the way its own users do it. Shared by
 * `agent-rooms connect` (which runs these, or prints them when the host CLI is missing) and the
 * UI's connect dialog (which shows them), so both always say the same thing. docs/hosts.md
 * explains each line.
 */
import type { McpHost } from './hosts.js';

/** The per-agent server name hosts know the room by (one agent's auth failure cannot poison another's). */
export function mcpServerName(plate: string): string {
  return `agent-rooms-${plate.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`;
}

/** The env var Codex reads the bearer credential from (Codex keeps no secret in its config.toml). */
export function codexTokenVar(plate: string): string {
  return `AGENT_ROOMS_TOKEN_${plate.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface ConnectInput {
  host: McpHost;
  plate: string;
  /** The server's base URL, e.g. http://127.0.0.1:7878 */
  baseUrl: string;
  credential: string;
  /** Claude Code only: mark the connection as listening for channel pushes (`?channels=1`). */
  channels?: boolean;
  /** The tool profile (`?tools=core|full`); left out, the URL names none (the server's default, full). */
  tools?: 'core' | 'full';
}

export interface ConnectPlan {
  server: string;
  url: string;
  /** The host CLI the commands run (absent for Cursor, which is configured by file). */
  cli?: 'claude' | 'codex' | 'gemini';
  /** Lines to paste into a shell, as argv, in order (Codex's first one is the `export` of its token variable). */
  commands: string[][];
  /** Cursor: the entry to merge into ~/.cursor/mcp.json (or .cursor/mcp.json of a project). */
  cursorEntry?: { url: string; headers: Record<string, string> };
  /** What the user still has to do by hand, one line each. */
  notes: string[];
}

export function connectPlan(i: ConnectInput): ConnectPlan {
  const server = mcpServerName(i.plate);
  const query = [...(i.tools ? [`tools=${i.tools}`] : []), ...(i.host === 'claude-code' && i.channels ? ['channels=1'] : [])];
  const url = `${i.baseUrl}/mcp/${i.host}${query.length ? `?${query.join('&')}` : ''}`;
  const auth = `Authorization: Bearer ${i.credential}`;
  switch (i.host) {
    case 'claude-code':
      return {
        server,
        url,
        cli: 'claude',
        commands: [['claude', 'mcp', 'add', '--scope', 'user', '--transport', 'http', server, url, '--header', auth]],
        notes: i.channels
          ? [
              `Start Claude Code with: claude --channels server:${server}`,
              'Channels need a claude.ai sign-in (not an API key only); without them wakes go to the runner or the inbox.',
            ]
          : [],
      };
    case 'codex': {
      const tokenVar = codexTokenVar(i.plate);
      return {
        server,
        url,
        cli: 'codex',
        // The export is a line of its own (not a comment): Codex starts without the room's tools when the variable is unset.
        commands: [
          ['export', `${tokenVar}=${i.credential}`],
          ['codex', 'mcp', 'add', server, '--url', url, '--bearer-token-env-var', tokenVar],
        ],
        notes: [`Codex reads the credential from ${tokenVar} in its environment: keep the export in your shell profile`],
      };
    }
    case 'gemini':
      return {
        server,
        url,
        cli: 'gemini',
        commands: [['gemini', 'mcp', 'add', '--scope', 'user', '--transport', 'http', server, url, '--header', auth]],
        notes: [],
      };
    case 'cursor':
      return {
        server,
        url,
        commands: [],
        cursorEntry: { url, headers: { Authorization: `Bearer ${i.credential}` } },
        notes: [`Add to ~/.cursor/mcp.json under "mcpServers": "${server}": ${JSON.stringify({ url, headers: { Authorization: `Bearer ${i.credential}` } })}`],
      };
  }
}

/** A command as one shell line (single-quoted where needed), for printing and for the UI. */
export function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
