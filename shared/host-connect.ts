/**
 * How each agent host registers the room's MCP server, the way its own users do it. Shared by
 * `agent-rooms connect` (which writes these, or prints them when the host CLI is missing) and the
 * UI's connect dialog (which shows them), so both always say the same thing. Each host's plan is
 * its own (shared/hosts.ts); docs/hosts.md explains each line.
 */
import { hostInfo, type ConnectInput, type ConnectPlan } from './hosts.js';

export { codexTokenVar, mcpServerName, shellLine, type ConnectInput, type ConnectPlan, type ConnectWrite } from './hosts.js';

export function connectPlan(i: ConnectInput): ConnectPlan {
  const h = hostInfo(i.host);
  if (!h) throw new Error(`unknown host ${i.host}`);
  return h.plan(i);
}
