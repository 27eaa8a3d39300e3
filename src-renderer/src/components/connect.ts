import type { McpUrls } from '../types';
import { connectPlan } from '../../../shared/host-connect';
import { HOSTS, MCP_HOSTS, shellLine, type ConnectPlan, type HostId } from '../../../shared/hosts';

export type HostKey = HostId | 'generic';

export interface Instruction {
  host: HostKey;
  title: string;
  where: string;
  text: string;
}

/** What the window writes where the credential goes: it is never shown on a command line (docs/hosts.md). */
export const CREDENTIAL_PLACEHOLDER = '<credential>';

/** A value as it sits in its file: `{"mcpServers": {"agent-rooms-x": {…}}}`. */
function nested(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((v, k) => ({ [k]: v }), value);
}

/** What `connect` writes and runs for a host, as lines: the same plan the CLI follows (shared/hosts.ts). */
function planLines(plan: ConnectPlan): string[] {
  const lines: string[] = [];
  for (const run of plan.runs) lines.push(shellLine(run));
  for (const w of plan.writes) {
    if (w.envLine) lines.push(`# ${w.file} (mode 600), which the host loads at start:`, `${w.envLine.name}=${w.envLine.value}`);
    if (w.json) lines.push(`# ${w.file} (mode 600, your own entries kept):`, JSON.stringify(nested(w.json.path, w.json.value), null, 2));
  }
  return lines;
}

/**
 * Connection lines for each supported host: `agent-rooms connect HOST --agent NAME`, which mints a
 * credential and keeps it in the host's own owner-only file, then what it writes there, from the
 * same plan the CLI follows (shared/hosts.ts), with the MCP URL it registers (`?tools=core`). No
 * secret is ever in these lines: where the credential goes they say `<credential>`.
 * Without the agent's plate the server name is generic.
 */
export function connectionInstructions(urls: McpUrls, plate?: string, agentName?: string, roomId?: string): Instruction[] {
  const baseUrl = urls.generic.replace(/\/mcp$/, '');
  const who = agentName ? (/^[A-Za-z0-9_-]+$/.test(agentName) ? agentName : `'${agentName.replace(/'/g, `'\\''`)}'`) : '<agent>';
  const room = roomId ? ` --room ${roomId}` : '';
  return [
    ...HOSTS.map((h) => {
      const plan = connectPlan({ host: h.id, plate: plate ?? 'AGENT', baseUrl, credential: CREDENTIAL_PLACEHOLDER, tools: 'core' });
      const server = plate ? plan.server : 'agent-rooms';
      const rename = (line: string) => (plate ? line : line.split(plan.server).join(server));
      return {
        host: h.id,
        title: h.title,
        where: `Run in a terminal where ${h.title} is installed: it registers the room's server with a fresh credential, kept in ${h.title}'s own owner-only file (never on a command line), and makes the agent wake on a mention.`,
        text: [`agent-rooms connect ${h.id} --agent ${who}${room}`, '', '# What it writes:', ...planLines(plan).map(rename)].join('\n'),
      };
    }),
    {
      host: 'generic',
      title: 'Any MCP client',
      where: 'Streamable HTTP URL, with a credential of the agent (mint one on the Agents page, where it is shown once) as a bearer token, kept in your client’s secret store rather than on a command line:',
      text: `${urls.generic}?tools=core\nAuthorization: Bearer ${CREDENTIAL_PLACEHOLDER}`,
    },
  ];
}

/** The MCP URLs when no credential response is at hand: derived from the page's own origin. */
export function urlsFromOrigin(origin: string): McpUrls {
  return { generic: `${origin}/mcp`, ...Object.fromEntries(MCP_HOSTS.map((h) => [h, `${origin}/mcp/${h}`])) } as McpUrls;
}
