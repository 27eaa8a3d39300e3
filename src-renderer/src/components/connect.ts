import type { McpUrls } from '../types';

export type HostKey = 'claude-code' | 'codex' | 'gemini' | 'cursor' | 'generic';

export interface Instruction {
  host: HostKey;
  title: string;
  where: string;
  text: string;
}

/** Ready-to-paste connection snippets for each supported host; `secret` is the credential or a placeholder. */
export function connectionInstructions(urls: McpUrls, secret: string, name = 'agent-rooms'): Instruction[] {
  return [
    {
      host: 'claude-code',
      title: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add --transport http ${name} ${urls['claude-code']} --header "Authorization: Bearer ${secret}"`,
    },
    {
      host: 'codex',
      title: 'Codex',
      where: 'Add to ~/.codex/config.toml:',
      text: `[mcp_servers.${name}]\nurl = "${urls.codex}"\nhttp_headers = { "Authorization" = "Bearer ${secret}" }`,
    },
    {
      host: 'gemini',
      title: 'Gemini CLI',
      where: 'Add to ~/.gemini/settings.json (or .gemini/settings.json in the project):',
      text: JSON.stringify({ mcpServers: { [name]: { httpUrl: urls.gemini, headers: { Authorization: `Bearer ${secret}` } } } }, null, 2),
    },
    {
      host: 'cursor',
      title: 'Cursor',
      where: 'Add to .cursor/mcp.json in the project (or ~/.cursor/mcp.json):',
      text: JSON.stringify({ mcpServers: { [name]: { url: urls.cursor, headers: { Authorization: `Bearer ${secret}` } } } }, null, 2),
    },
    {
      host: 'generic',
      title: 'Any MCP client',
      where: 'Streamable HTTP URL, with the credential as a bearer token (or ?key= on the URL):',
      text: `${urls.generic}\nAuthorization: Bearer ${secret}`,
    },
  ];
}

/** The MCP URLs when no credential response is at hand: derived from the page's own origin. */
export function urlsFromOrigin(origin: string): McpUrls {
  return { generic: `${origin}/mcp`, 'claude-code': `${origin}/mcp/claude-code`, codex: `${origin}/mcp/codex`, gemini: `${origin}/mcp/gemini`, cursor: `${origin}/mcp/cursor` };
}
