/**
 * Tool call ids a host's JSON output has named, with the tool each called: for hosts whose event
 * that refuses a call names only its id (Copilot CLI's `tool.execution_complete`, Qwen Code's
 * `tool_result`), the refusal is matched to the room's server through the call that named it.
 * An adapter reads every run's events through one function (hosts/adapter.ts toolsRefused), so
 * this is kept per adapter, bounded: ids are the model's own (random per call), and only the
 * latest few hundred calls of all runs at once are kept.
 */
export class RecentCalls {
  private readonly calls = new Map<string, string>();

  constructor(private readonly max = 512) {}

  note(id: unknown, tool: unknown): void {
    if (typeof id !== 'string' || typeof tool !== 'string' || !id) return;
    this.calls.delete(id);
    this.calls.set(id, tool);
    while (this.calls.size > this.max) this.calls.delete(this.calls.keys().next().value as string);
  }

  tool(id: unknown): string | undefined {
    return typeof id === 'string' ? this.calls.get(id) : undefined;
  }
}
