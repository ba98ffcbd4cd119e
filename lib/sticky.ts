// Sticky auto-routing: a session (Claude Code's `x-claude-code-session-id`, Responses `session_id`)
// keeps the model `gateway-auto` chose for it while that model still meets the request's needs, so
// a conversation stays on one model (and one provider cache). Bounded: oldest sessions are dropped.
//
// A session id is chosen by the client, so it is only an id within one caller: the map is keyed by
// organisation, key id and session id together. Keyed by the session id alone, one organisation's
// pin (made under its own key's allowlist) routed another organisation's request with the same
// session id to that model, at its price (issue #18).
//
// Shared by replicas and workers (lib/limits/sticky-sync.ts): a pin made here goes out to the
// others (`onPin`), and theirs come in (`adopt`); lookups stay local and synchronous.

/** Who a session belongs to: the authenticated key's organisation and id. */
export interface StickyOwner {
  org: string;
  keyId: string;
}

export class StickyRoutes {
  private readonly map = new Map<string, string>();
  /** told each pin this process makes (its map slot and model), to share it */
  onPin: ((slot: string, modelId: string) => void) | null = null;
  constructor(private readonly max = 10_000) {}

  get(owner: StickyOwner, session: string): string | undefined {
    return this.map.get(slot(owner, session));
  }

  set(owner: StickyOwner, session: string, modelId: string): void {
    const at = slot(owner, session);
    if (this.map.get(at) === modelId) return;
    this.adopt(at, modelId);
    this.onPin?.(at, modelId);
  }

  /** a pin another process made (`at` as `onPin` gave it) */
  adopt(at: string, modelId: string): void {
    this.map.delete(at);
    this.map.set(at, modelId);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }

  /** every pin, oldest first (a new worker gets them from the cluster primary) */
  entries(): [string, string][] {
    return [...this.map];
  }
}

/** One map key per (org, key, session); JSON keeps ids containing any separator apart. */
function slot(owner: StickyOwner, session: string): string {
  return JSON.stringify([owner.org, owner.keyId, session]);
}
