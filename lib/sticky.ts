// Sticky auto-routing: a session (Claude Code's `x-claude-code-session-id`, Responses `session_id`)
// keeps the model `gateway-auto` chose for it while that model still meets the request's needs, so
// a conversation stays on one model (and one provider cache). Bounded: oldest sessions are dropped.
export class StickyRoutes {
  private readonly map = new Map<string, string>();
  constructor(private readonly max = 10_000) {}

  get(session: string): string | undefined {
    return this.map.get(session);
  }

  set(session: string, modelId: string): void {
    if (this.map.get(session) === modelId) return;
    this.map.delete(session);
    this.map.set(session, modelId);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}
