/**
 * Which URLs the gateway may send its own requests to (payment webhooks today, alert
 * webhooks such as Discord's next): the rules against server-side request forgery, in one
 * place so that every sender applies the same ones.
 *
 * - `https:` to a public address; plain `http:` only to this machine (a loopback name or
 *   address: a receiver beside the gateway); never credentials in the URL.
 * - An https host whose addresses include a private (10/8, 172.16/12, 192.168/16, fc00::/7),
 *   shared (100.64/10), link-local (169.254/16 with the cloud metadata service, fe80::/10),
 *   loopback (127/8, ::1), unspecified, multicast or reserved address is refused, in IPv4,
 *   IPv6 and IPv4-mapped IPv6 (`[::ffff:7f00:1]`) alike, unless an operator allows that host
 *   by name ({@link OutboundRules.allowHosts}, the `WEBHOOK_ALLOW_HOSTS` setting).
 * - Checked twice: after DNS resolution, before anything is sent ({@link resolveOutboundUrl}),
 *   and at delivery, on the address the connection actually uses ({@link guardedLookup}, the
 *   `lookup` of undici's connector), so a name that resolves differently the second time (DNS
 *   rebinding) still cannot reach a private address. Senders never follow redirects.
 *
 * Addresses are classified by Node's `net.BlockList` (which matches IPv4-mapped IPv6 against
 * the IPv4 ranges), not by our own parsing.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** What an operator allows beyond the rules. */
export interface OutboundRules {
  /** Host names (or address literals) that may be private, compared case-insensitively (`WEBHOOK_ALLOW_HOSTS`). */
  readonly allowHosts: readonly string[];
}

/** A URL the rules refuse; `message` says which rule, never more than the URL's host. */
export class OutboundUrlError extends Error {
  /** Always `OutboundUrlError`. */
  override readonly name = 'OutboundUrlError';
}

/** Resolves a host name to every address (Node's `dns.lookup` with `all: true` by default). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The ranges no https request may reach (see the module comment). */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['64:ff9b::', 96], // NAT64: an IPv4 address in disguise
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** Loopback only: where plain http may go. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Names that always mean this machine. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost']);

/** The host of a URL without IPv6 brackets, lower case. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function family(address: string): 'ipv4' | 'ipv6' | null {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

/** True when `address` (an IP literal) is private, link-local, loopback, metadata, multicast or reserved; false for a public one and for anything that is not an address. */
export function isBlockedAddress(address: string): boolean {
  const kind = family(address);
  return kind !== null && BLOCKED.check(address, kind);
}

/** True when `address` (an IP literal) is a loopback address (127/8, ::1, or either IPv4-mapped). */
export function isLoopbackAddress(address: string): boolean {
  const kind = family(address);
  return kind !== null && LOOPBACK.check(address, kind);
}

function allowed(host: string, rules: OutboundRules): boolean {
  return rules.allowHosts.some((each) => each.toLowerCase().replace(/^\[(.*)\]$/, '$1') === host);
}

/**
 * Checks what can be checked without DNS: the scheme, no credentials, and a host that is an
 * address literal (plain http only to loopback; https never to a blocked address unless allowed).
 *
 * @returns the parsed URL
 * @throws OutboundUrlError naming the rule broken
 */
export function checkOutboundUrl(text: string, rules: OutboundRules): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundUrlError('not a URL');
  }
  if (url.username !== '' || url.password !== '') throw new OutboundUrlError('a URL with credentials');
  const host = bareHost(url);
  if (url.protocol === 'http:') {
    if (!LOOPBACK_NAMES.has(host) && !isLoopbackAddress(host))
      throw new OutboundUrlError(
        `plain http to ${host}: http only to this machine (127.0.0.1, ::1, localhost), else https`,
      );
    return url;
  }
  if (url.protocol !== 'https:') throw new OutboundUrlError(`${url.protocol} URL: https only`);
  if (!allowed(host, rules) && (LOOPBACK_NAMES.has(host) || isBlockedAddress(host)))
    throw new OutboundUrlError(
      `https to ${host}, a private, loopback, link-local or reserved address (an operator may allow the host: WEBHOOK_ALLOW_HOSTS)`,
    );
  return url;
}

/** Refuses `address` for a request to `url` (already checked by {@link checkOutboundUrl}). */
function checkAddress(url: URL, address: string, rules: OutboundRules): void {
  const host = bareHost(url);
  if (url.protocol === 'http:') {
    if (!isLoopbackAddress(address))
      throw new OutboundUrlError(`plain http to ${host}, which resolves to ${address}: http only to this machine`);
    return;
  }
  if (!allowed(host, rules) && isBlockedAddress(address))
    throw new OutboundUrlError(
      `https to ${host}, which resolves to ${address}, a private, loopback, link-local or reserved address (an operator may allow the host: WEBHOOK_ALLOW_HOSTS)`,
    );
}

const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/**
 * Checks a URL and every address its host resolves to (all of them must pass: a name with one
 * public and one private address is refused).
 *
 * @param resolve - the resolver (default: the system's, as undici's connector uses)
 * @returns the URL and the addresses
 * @throws OutboundUrlError for a URL the rules refuse or a host that does not resolve
 */
export async function resolveOutboundUrl(
  text: string,
  rules: OutboundRules,
  resolve: HostResolver = systemResolver,
): Promise<{ url: URL; addresses: string[] }> {
  const url = checkOutboundUrl(text, rules);
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((entry) => entry.address);
    } catch {
      throw new OutboundUrlError(`${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new OutboundUrlError(`${host} does not resolve`);
  for (const address of addresses) checkAddress(url, address, rules);
  return { url, addresses };
}

/** The callback shape of `dns.lookup`, as undici's connector (`net.connect`'s `lookup`) calls it. */
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for undici's connector (`new Agent({ connect: { lookup } })`) that resolves as
 * `dns.lookup` does and refuses an address the rules refuse for `url`'s scheme, so that the
 * address a connection actually uses is checked at delivery (no DNS rebinding).
 *
 * @param resolve - the resolver (tests give a fixed one)
 */
export function guardedLookup(
  rules: OutboundRules,
  scheme: 'http:' | 'https:',
  resolve: HostResolver = systemResolver,
): (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    const url = new URL(`${scheme}//${isIP(hostname) === 6 ? `[${hostname}]` : hostname}/`);
    const addresses =
      isIP(hostname) !== 0 ? Promise.resolve([{ address: hostname, family: isIP(hostname) }]) : resolve(hostname);
    addresses.then(
      (found) => {
        try {
          for (const entry of found) checkAddress(url, entry.address, rules);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const first = found[0];
        if (!first) callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
        else if ('all' in options && options.all) callback(null, found);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * A URL with its secret parts (userinfo, query, fragment, a Discord webhook's token) replaced
 * by an ellipsis. `discord`: the URL is a Discord webhook's wherever it points (a stand-in
 * for Discord), so its path after `/webhooks/<id>/` (or all of it, in another shape) is secret.
 */
export function elideUrl(text: string, discord = false): string {
  try {
    const url = new URL(text);
    const token = /^(\/api\/(?:v\d+\/)?webhooks\/[^/]+\/).+$/;
    const path =
      discord && !token.test(url.pathname)
        ? '/…'
        : discord || /(^|\.)discord(app)?\.com$/.test(url.hostname)
          ? url.pathname.replace(token, '$1…')
          : url.pathname;
    return `${url.protocol}//${url.username || url.password ? '…@' : ''}${url.host}${path}${url.search ? '?…' : ''}`;
  } catch {
    return '…';
  }
}
