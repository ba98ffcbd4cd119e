// The request line and `Host` as HTTP/1.1 requires them of a server that is not a proxy, checked
// before any hook: the target must be origin-form (a path, RFC 9112 §3.2.1), and there must be
// exactly one `Host` (§3.2: a request with none, in HTTP/1.1, or with several gets 400).
// Absolute-form (`POST http://x/v1/messages`) is what a client sends to a proxy, and a path starting
// with `//` (`POST //evil.example/v1/messages`) is what URL resolution reads as another host: both
// were served as /v1/messages, so the gateway answered for an origin the client did not mean. They
// are refused with 400 (not 404: the route may well exist; the target's form is what is wrong).
import type { IncomingMessage } from 'node:http';
import type { GatewayError } from './errors.js';
import { errors } from './errors/index.js';

export interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
  /** the target is not an origin-form path: the request is refused (the path, when one could be read, picks the envelope) */
  refused: GatewayError | null;
}

/** A path made only of these needs no URL parsing: no query, no percent-encoding, no dot segments. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+$/;
const NO_QUERY: URLSearchParams = new URLSearchParams();
const ORIGIN = 'http://gateway.local';

/** The request's path and query: `new URL` only when the target is not a plain path. */
export function requestTarget(raw: string | undefined): RequestTarget {
  if (raw !== undefined && PLAIN_PATH.test(raw)) return { pathname: raw, searchParams: NO_QUERY, refused: null };
  const target = raw ?? '/';
  if (target.startsWith('/') && !target.startsWith('//')) {
    const url = new URL(target, ORIGIN);
    return { pathname: url.pathname, searchParams: url.searchParams, refused: null };
  }
  // refused; the path it names (if any) still chooses the error's envelope
  let pathname = '/';
  try {
    pathname = target.startsWith('/') ? new URL(ORIGIN + target).pathname : new URL(target).pathname;
  } catch {
    // authority-form or asterisk-form: no path
  }
  return { pathname, searchParams: NO_QUERY, refused: errors.targetNotOriginForm(target) };
}

/** An HTTP/1.1 request without `Host`, or any request with more than one: 400. */
export function hostError(req: IncomingMessage): GatewayError | null {
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return errors.hostRepeated();
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return errors.hostMissing();
  return null;
}
