import type { McpUrls } from '../types';
import { connectPlan, shellLine } from '../../../shared/host-connect';
import type { McpHost } from '../../../shared/hosts';

export type HostKey = McpHost | 'generic';

export interface Instruction {
  host: HostKey;
  title: string;
  where: string;
  text: string;
}

const TITLES: Record<McpHost, string> = { 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', cursor: 'Cursor' };

/**
 * Ready-to-paste connection lines for each supported host: the same commands
 * `agent-rooms connect HOST --agent NAME` runs (shared/host-connect.ts), with `secret` (the
 * credential or a placeholder) filled in. Without the agent's plate the server name is generic.
 */
export function connectionInstructions(urls: McpUrls, secret: string, plate?: string, agentName?: string): Instruction[] {
  const baseUrl = urls.generic.replace(/\/mcp$/, '');
  const who = agentName ? (/^[A-Za-z0-9_-]+$/.test(agentName) ? agentName : `'${agentName.replace(/'/g, `'\\''`)}'`) : '<agent>';
  const hosts = Object.keys(TITLES) as McpHost[];
  return [
    ...hosts.map((host) => {
      const plan = connectPlan({ host, plate: plate ?? 'AGENT', baseUrl, credential: secret });
      const server = plate ? plan.server : 'agent-rooms';
      const lines = plan.commands.map((c) => shellLine(c.map((a) => (a === plan.server ? server : a))));
      const cursor = host === 'cursor' ? JSON.stringify({ mcpServers: { [server]: plan.cursorEntry } }, null, 2) : undefined;
      return {
        host,
        title: TITLES[host],
        where:
          host === 'cursor'
            ? `Add to ~/.cursor/mcp.json (or .cursor/mcp.json in the project), or run: agent-rooms connect cursor --agent ${who}`
            : `Run in a terminal (or let the server do it, with a fresh credential: agent-rooms connect ${host} --agent ${who}):`,
        text: cursor ?? [...lines, ...plan.notes.map((n) => `# ${n.replace(plan.server, server)}`)].join('\n'),
      };
    }),
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
