/**
 * The client address of a request: the socket's peer, or, when that peer is a trusted
 * proxy, the address it names in `X-Forwarded-For` (walked from the right while each hop
 * is trusted, as Express does, with Express's own `proxy-addr`). A header from an
 * untrusted peer is ignored: anyone can send one.
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** The address of a request whose socket has none (already closed). */
const UNKNOWN = 'unknown';

/**
 * Builds the reader of client addresses for a list of trusted proxies.
 *
 * @param trustedProxies - IPs, CIDR ranges or `loopback` / `linklocal` / `uniquelocal`
 *   (`TRUSTED_PROXIES`, checked when the settings are read); empty: the socket's address
 * @returns a function giving a request's client address (`unknown` when its socket is gone)
 */
export function clientAddressReader(trustedProxies: readonly string[]): (request: IncomingMessage) => string {
  if (trustedProxies.length === 0) return (request) => request.socket.remoteAddress ?? UNKNOWN;
  const trust = proxyaddr.compile([...trustedProxies]);
  return (request) => (request.socket.remoteAddress === undefined ? UNKNOWN : proxyaddr(request, trust));
}
