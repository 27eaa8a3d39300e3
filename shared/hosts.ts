/**
 * The agent hosts, as the window and the core both know them (docs/hosts.md "Adding a host").
 * This file is the pure part of each host adapter (no Node built-ins: the renderer imports it):
 * its id, title, CLI, preset, which MCP resource it reaches and its connect plan, the one source
 * of the lines `agent-rooms connect` runs or writes and the connect dialog shows. The Node part
 * of each host (its config files, doctor checks, per-run home, usage and refusals) is the adapter
 * in `src-main/core/hosts/<id>.ts`, which takes its pure part from here.
 */

/** The host-bound MCP resources the specification names; `/mcp` alone is the generic resource. */
export const MCP_HOSTS = ['claude-code', 'codex', 'gemini', 'cursor'] as const;
export type McpHost = (typeof MCP_HOSTS)[number];
export type McpResourceHost = McpHost | 'generic';

export function isMcpHost(s: string): s is McpHost {
  return (MCP_HOSTS as readonly string[]).includes(s);
}

/** A host's id as runners, wakes and `agent-rooms connect HOST` name it (`claude-code`, `opencode`, …). */
export type HostId = string;

/** The per-agent server name hosts know the room by (one agent's auth failure cannot poison another's). */
export function mcpServerName(plate: string): string {
  return `agent-rooms-${plate.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`;
}

/** An env var name made of a prefix and the plate (Codex's bearer variable, say). */
export function plateVar(prefix: string, plate: string): string {
  return `${prefix}${plate.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The env var Codex reads the bearer credential from (Codex keeps no secret in its config.toml). */
export function codexTokenVar(plate: string): string {
  return plateVar('AGENT_ROOMS_TOKEN_', plate);
}

export interface ConnectInput {
  host: HostId;
  plate: string;
  /** The server's base URL, e.g. http://127.0.0.1:7878 */
  baseUrl: string;
  /** The credential, or (the window) a placeholder naming where connect keeps it: never a secret on screen. */
  credential: string;
  /** Claude Code only: mark the connection as listening for channel pushes (`?channels=1`). */
  channels?: boolean;
  /** The tool profile (`?tools=core|full`); left out, the URL names none (the server's default, full). */
  tools?: 'core' | 'full';
}

/** One file `connect` writes: a JSON entry at a key path, or a `NAME=value` line (a dotenv file). */
export interface ConnectWrite {
  /** The file as a person reads it (`~/.claude.json`); the adapter resolves the real path from the env. */
  file: string;
  json?: { path: string[]; value: unknown };
  envLine?: { name: string; value: string };
}

export interface ConnectPlan {
  server: string;
  url: string;
  /** The host CLI the commands run (absent for hosts configured by file only). */
  cli?: string;
  /**
   * The by-hand lines (argv, in order) `connect --print` prints and a missing CLI gets: what a
   * user of the host would type. They may carry the credential (they are printed once, to the
   * person who asked); the window shows `display` instead, never these.
   */
  commands: string[][];
  /** What `connect` itself writes into the host's own files (owner-only, merged with the user's entries). */
  writes: ConnectWrite[];
  /**
   * Commands `connect` runs itself, without a secret on any of them (Codex's `codex mcp add …
   * --bearer-token-env-var NAME`): the credential reaches the host through `writes`.
   */
  runs: string[][];
  /** What the user still has to do by hand, one line each. */
  notes: string[];
}

/** The pure part of a host adapter (src-main/core/hosts/adapter.ts `HostAdapter` extends it). */
export interface HostInfo {
  id: HostId;
  /** As people call it: `Claude Code`, `Gemini CLI`. */
  title: string;
  /** The CLI's command name, looked up on PATH by `connect`. */
  cli: string;
  /** The runner preset's name (`claude -p`). */
  preset: string;
  /** Other names a person may type for the preset (`claude`). */
  presetAliases: readonly string[];
  /** The MCP resource its runs and connections reach: its own host-bound one, or the generic `/mcp`. */
  mcpResource: McpResourceHost;
  /** Whether the host takes channel pushes on a live session (`connect --channels`; Claude Code only). */
  channels?: boolean;
  /** The connect plan: the same for the CLI and the window (with a placeholder credential there). */
  plan(i: ConnectInput): ConnectPlan;
}

/** The URL of a host's MCP resource with the query connect and the presets use. */
export function hostMcpUrl(h: Pick<HostInfo, 'mcpResource'>, i: Pick<ConnectInput, 'baseUrl' | 'tools' | 'channels'>): string {
  const query = [...(i.tools ? [`tools=${i.tools}`] : []), ...(h.mcpResource === 'claude-code' && i.channels ? ['channels=1'] : [])];
  return `${i.baseUrl}${h.mcpResource === 'generic' ? '/mcp' : `/mcp/${h.mcpResource}`}${query.length ? `?${query.join('&')}` : ''}`;
}

const bearer = (credential: string) => `Bearer ${credential}`;

const claudeCode: HostInfo = {
  id: 'claude-code',
  title: 'Claude Code',
  cli: 'claude',
  preset: 'claude -p',
  presetAliases: ['claude'],
  mcpResource: 'claude-code',
  channels: true,
  plan(i) {
    const server = mcpServerName(i.plate);
    const url = hostMcpUrl(this, i);
    return {
      server,
      url,
      cli: 'claude',
      commands: [['claude', 'mcp', 'add', '--scope', 'user', '--transport', 'http', server, url, '--header', `Authorization: ${bearer(i.credential)}`]],
      writes: [{ file: '~/.claude.json', json: { path: ['mcpServers', server], value: { type: 'http', url, headers: { Authorization: bearer(i.credential) } } } }],
      runs: [],
      notes: i.channels
        ? [
            `Start Claude Code with: claude --channels server:${server}`,
            'Channels need a claude.ai sign-in (not an API key only); without them wakes go to the runner or the inbox.',
          ]
        : [],
    };
  },
};

const codex: HostInfo = {
  id: 'codex',
  title: 'Codex',
  cli: 'codex',
  preset: 'codex exec',
  presetAliases: ['codex'],
  mcpResource: 'codex',
  plan(i) {
    const server = mcpServerName(i.plate);
    const url = hostMcpUrl(this, i);
    const tokenVar = codexTokenVar(i.plate);
    const add = ['codex', 'mcp', 'add', server, '--url', url, '--bearer-token-env-var', tokenVar];
    return {
      server,
      url,
      cli: 'codex',
      // The export is a line of its own (not a comment): Codex starts without the room's tools when the variable is unset.
      commands: [['export', `${tokenVar}=${i.credential}`], add],
      writes: [{ file: '~/.codex/.env', envLine: { name: tokenVar, value: i.credential } }],
      runs: [add],
      notes: [`Codex reads the credential from ${tokenVar}, which it loads from ~/.codex/.env at every start`],
    };
  },
};

const gemini: HostInfo = {
  id: 'gemini',
  title: 'Gemini CLI',
  cli: 'gemini',
  preset: 'gemini -p',
  presetAliases: ['gemini'],
  mcpResource: 'gemini',
  plan(i) {
    const server = mcpServerName(i.plate);
    const url = hostMcpUrl(this, i);
    return {
      server,
      url,
      cli: 'gemini',
      commands: [['gemini', 'mcp', 'add', '--scope', 'user', '--transport', 'http', server, url, '--header', `Authorization: ${bearer(i.credential)}`]],
      writes: [{ file: '~/.gemini/settings.json', json: { path: ['mcpServers', server], value: { httpUrl: url, headers: { Authorization: bearer(i.credential) } } } }],
      runs: [],
      notes: [],
    };
  },
};

const cursor: HostInfo = {
  id: 'cursor',
  title: 'Cursor',
  cli: 'cursor-agent',
  preset: 'cursor-agent -p',
  presetAliases: ['cursor-agent', 'cursor'],
  mcpResource: 'cursor',
  plan(i) {
    const server = mcpServerName(i.plate);
    const url = hostMcpUrl(this, i);
    const entry = { url, headers: { Authorization: bearer(i.credential) } };
    return {
      server,
      url,
      commands: [],
      writes: [{ file: '~/.cursor/mcp.json', json: { path: ['mcpServers', server], value: entry } }],
      runs: [],
      notes: [`Add to ~/.cursor/mcp.json under "mcpServers": "${server}": ${JSON.stringify(entry)}`],
    };
  },
};

/**
 * A host that reaches the room through the generic `/mcp` resource and is configured by one JSON
 * entry in its own settings file (opencode, Copilot CLI, Qwen Code, Cline; docs/hosts.md).
 */
function fileHost(h: Omit<HostInfo, 'plan' | 'mcpResource'> & { file: string; path: (server: string) => string[]; entry: (url: string, auth: string) => unknown; command?: (server: string, url: string, auth: string) => string[] }): HostInfo {
  return {
    id: h.id,
    title: h.title,
    cli: h.cli,
    preset: h.preset,
    presetAliases: h.presetAliases,
    mcpResource: 'generic',
    plan(i) {
      const server = mcpServerName(i.plate);
      const url = hostMcpUrl(this, i);
      const auth = bearer(i.credential);
      return {
        server,
        url,
        ...(h.command ? { cli: h.cli } : {}),
        commands: h.command ? [h.command(server, url, auth)] : [],
        writes: [{ file: h.file, json: { path: h.path(server), value: h.entry(url, auth) } }],
        runs: [],
        notes: [],
      };
    },
  };
}

const opencode = fileHost({
  id: 'opencode',
  title: 'opencode',
  cli: 'opencode',
  preset: 'opencode run',
  presetAliases: ['opencode'],
  file: '~/.config/opencode/opencode.json',
  path: (server) => ['mcp', server],
  entry: (url, auth) => ({ type: 'remote', url, oauth: false, headers: { Authorization: auth } }),
});

const copilot = fileHost({
  id: 'copilot',
  title: 'GitHub Copilot CLI',
  cli: 'copilot',
  preset: 'copilot --allow-tool',
  presetAliases: ['copilot'],
  file: '~/.copilot/mcp-config.json',
  path: (server) => ['mcpServers', server],
  entry: (url, auth) => ({ type: 'http', url, headers: { Authorization: auth }, tools: ['*'] }),
});

/** The variable Qwen Code's settings name for the credential (`$VAR`, from `~/.qwen/.env`): it rewrites settings.json readable by all. */
export function qwenTokenVar(plate: string): string {
  return plateVar('AGENT_ROOMS_TOKEN_', plate);
}

const qwen: HostInfo = {
  id: 'qwen',
  title: 'Qwen Code',
  cli: 'qwen',
  preset: 'qwen -o stream-json',
  presetAliases: ['qwen'],
  mcpResource: 'generic',
  plan(i) {
    const server = mcpServerName(i.plate);
    const url = hostMcpUrl(this, i);
    const tokenVar = qwenTokenVar(i.plate);
    return {
      server,
      url,
      commands: [],
      writes: [
        { file: '~/.qwen/settings.json', json: { path: ['mcpServers', server], value: { httpUrl: url, headers: { Authorization: `Bearer $${tokenVar}` } } } },
        { file: '~/.qwen/.env', envLine: { name: tokenVar, value: i.credential } },
      ],
      runs: [],
      notes: [
        // Printed once to whoever asked (connect --print); connect itself writes it and leaves out a note that holds the credential.
        `Put ${tokenVar}=${i.credential} in ~/.qwen/.env (mode 600)`,
        `Qwen Code reads the credential from ${tokenVar}, which it loads from ~/.qwen/.env (a project's own .qwen/.env is loaded instead of it)`,
      ],
    };
  },
};

const cline = fileHost({
  id: 'cline',
  title: 'Cline',
  cli: 'cline',
  preset: 'cline -v',
  presetAliases: ['cline'],
  file: '~/.cline/data/settings/cline_mcp_settings.json',
  path: (server) => ['mcpServers', server],
  entry: (url, auth) => ({ transport: { type: 'streamableHttp', url, headers: { Authorization: auth } } }),
  command: (server, url, auth) => ['cline', 'mcp', 'add', server, url, '--transport', 'http', '--header', `Authorization: ${auth}`, '--yes'],
});

/**
 * Every host, in the order the window lists them. Adding a host: its pure part here (one row),
 * its adapter file in src-main/core/hosts/ and its test (docs/hosts.md "Adding a host").
 */
export const HOSTS: readonly HostInfo[] = [claudeCode, codex, gemini, cursor, opencode, copilot, qwen, cline];

export function hostInfo(id: string): HostInfo | undefined {
  return HOSTS.find((h) => h.id === id);
}

export function isHostId(s: string): boolean {
  return HOSTS.some((h) => h.id === s);
}

/** A command as one shell line (single-quoted where needed), for printing and for the UI. */
export function shellLine(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
