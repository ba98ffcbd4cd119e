// A Redis URL fit to print: kept apart from redis.ts so that printing a config (a reload's diff)
// does not load the Redis client, which only a gateway with `limits` set needs.

/** The URL with any password replaced (for messages and logs). */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'the configured redis URL';
  }
}
