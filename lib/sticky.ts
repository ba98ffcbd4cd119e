// Sticky auto-routing: a session (Claude Code's `x-claude-code-session-id`, Responses `session_id`)
// keeps the model `gateway-auto` chose for it while that model still meets the request's needs, so
// a conversation stays on one model (and one provider cache). Bounded: oldest sessions are dropped.
//
// A session id is chosen by the client, so it is only an id within one caller: the map is keyed by
// organisation, key id and session id together. Keyed by the session id alone, one organisation's
// pin (made under its own key's allowlist) routed another organisation's request with the same
// session id to that model, at its price (issue #18).

/** Who a session belongs to: the authenticated key's organisation and id. */
export interface StickyOwner {
  org: string;
  keyId: string;
}

export class StickyRoutes {
  private readonly map = new Map<string, string>();
  constructor(private readonly max = 10_000) {}

  get(owner: StickyOwner, session: string): string | undefined {
    return this.map.get(slot(owner, session));
  }

  set(owner: StickyOwner, session: string, modelId: string): void {
    const at = slot(owner, session);
    if (this.map.get(at) === modelId) return;
    this.map.delete(at);
    this.map.set(at, modelId);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/** One map key per (org, key, session); JSON keeps ids containing any separator apart. */
function slot(owner: StickyOwner, session: string): string {
  return JSON.stringify([owner.org, owner.keyId, session]);
}
