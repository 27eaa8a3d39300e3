import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpResourceHost } from '../../shared/hosts.js';

/** One MCP session: one live instance of an agent, bound to the plate that opened it. */
export interface McpSession {
  id: string;
  /** Short label used as the `#session` part of a handle. */
  label: string;
  plate: string;
  agentId: string;
  ownerId: string;
  host: McpResourceHost;
  credentialId: string;
  deviceId: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  createdAt: number;
  lastSeen: number;
  /**
   * The connection opted in to channel delivery (`?channels=1` on /mcp/claude-code, which
   * `agent-rooms connect claude-code --channels` writes): Claude Code declares nothing in
   * initialize, so only this marks a session that listens for pushes.
   */
  channels?: boolean;
  /** Open GET (server-to-client) streams; a channel push needs one. */
  getStreams: number;
  /** Count of tools/call handled, e.g. for the runner's "no tool call back" flag. */
  toolCalls: number;
  /**
   * When this session last called a tool. Unlike lastSeen (any request: pings, the GET stream),
   * only tool calls count as work for presence (docs/wakes.md "Liveness").
   */
  lastToolCallAt?: number;
  /** Product feedback is at most once per MCP session. */
  productFeedbackSent?: boolean;
}

export class SessionRegistry {
  private readonly byId = new Map<string, McpSession>();
  /** The last tool call of each agent, from any of its sessions, kept after a session closes. */
  private readonly lastToolCall = new Map<string, number>();

  /** A tools/call of this agent (through this session, if it is still known): remembered for presence. */
  noteToolCall(plate: string, sessionId: string, now = Date.now()): void {
    const s = this.byId.get(sessionId);
    if (s) s.lastToolCallAt = now;
    this.lastToolCall.set(plate, now);
  }

  /** When the agent last called a tool through any session of this process (undefined: never). */
  lastToolCallOf(plate: string): number | undefined {
    return this.lastToolCall.get(plate);
  }
  private listeners: Array<(s: McpSession, ev: 'open' | 'close') => void> = [];

  add(s: McpSession): void {
    this.byId.set(s.id, s);
    for (const l of this.listeners) l(s, 'open');
  }

  get(id: string): McpSession | undefined {
    return this.byId.get(id);
  }

  /** Closes the transport and server and forgets the session; safe to call twice. */
  async close(id: string): Promise<void> {
    const s = this.byId.get(id);
    if (!s) return;
    this.byId.delete(id);
    for (const l of this.listeners) l(s, 'close');
    await s.transport.close().catch(() => {});
    await s.server.close().catch(() => {});
  }

  all(): McpSession[] {
    return [...this.byId.values()];
  }

  ofPlate(plate: string): McpSession[] {
    return this.all().filter((s) => s.plate === plate);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Listens to sessions opening and closing; returns the way to stop listening. */
  onChange(l: (s: McpSession, ev: 'open' | 'close') => void): () => void {
    this.listeners.push(l);
    return () => {
      const i = this.listeners.indexOf(l);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  async closeWhere(pred: (s: McpSession) => boolean): Promise<number> {
    const victims = this.all().filter(pred);
    await Promise.all(victims.map((s) => this.close(s.id)));
    return victims.length;
  }

  /**
   * Keeps live sessions within the caps after `keep` was added: the least recently used
   * sessions of its credential beyond perCredential are closed; then, beyond total, those of
   * the owner holding the most sessions (on a tie, `keep`'s own owner), one at a time. So an
   * owner filling the server evicts its own sessions, never those of an owner holding fewer
   * (docs/security.md "Third round": the cap was shared, the least recently used of anyone
   * went). Sessions holding a GET stream (a live listener) go last.
   */
  async enforceCaps(keep: McpSession, perCredential: number, total: number): Promise<number> {
    const order = (a: McpSession, b: McpSession) => Number(a.getStreams > 0) - Number(b.getStreams > 0) || a.lastSeen - b.lastSeen;
    const victims = new Set<McpSession>();
    const mine = this.all().filter((s) => s.credentialId === keep.credentialId && s !== keep);
    for (const s of mine.sort(order).slice(0, Math.max(0, mine.length + 1 - perCredential))) victims.add(s);
    let over = this.byId.size - victims.size - total;
    if (over > 0) {
      // Each owner's evictable sessions, oldest first; the largest holder gives one up per round.
      const byOwner = new Map<string, McpSession[]>();
      const counts = new Map<string, number>();
      for (const s of this.byId.values()) {
        if (victims.has(s)) continue;
        counts.set(s.ownerId, (counts.get(s.ownerId) ?? 0) + 1);
        if (s === keep) continue;
        let list = byOwner.get(s.ownerId);
        if (!list) byOwner.set(s.ownerId, (list = []));
        list.push(s);
      }
      for (const list of byOwner.values()) list.sort(order).reverse();
      for (; over > 0; over--) {
        let pick: string | undefined;
        for (const [owner, list] of byOwner) {
          if (!list.length) continue;
          const n = counts.get(owner)!;
          const best = pick === undefined ? -1 : counts.get(pick)!;
          if (n > best || (n === best && owner === keep.ownerId)) pick = owner;
        }
        if (pick === undefined) break;
        victims.add(byOwner.get(pick)!.pop()!);
        counts.set(pick, counts.get(pick)! - 1);
      }
    }
    await Promise.all([...victims].map((s) => this.close(s.id)));
    return victims.size;
  }

  /** Closes sessions idle for longer than idleMs; returns how many. */
  sweep(idleMs: number, now = Date.now()): Promise<number> {
    return this.closeWhere((s) => now - s.lastSeen > idleMs && s.getStreams === 0);
  }
}
