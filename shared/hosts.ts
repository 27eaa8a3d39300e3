/** The host-bound MCP resources; `/mcp` alone is the generic resource for pull clients. */
export const MCP_HOSTS = ['claude-code', 'codex', 'gemini', 'cursor'] as const;
export type McpHost = (typeof MCP_HOSTS)[number];
export type McpResourceHost = McpHost | 'generic';

export function isMcpHost(s: string): s is McpHost {
  return (MCP_HOSTS as readonly string[]).includes(s);
}
