/**
 * TRUSTED_PROXIES: what the setting accepts, and the client address it gives a request
 * (the socket's, or the one a trusted proxy names in X-Forwarded-For).
 */
import type { IncomingMessage } from 'node:http';
import { ConfigError, loadConfig } from '../../src/config';
import { clientAddressReader } from '../../src/http/client-address';

function requestFrom(remoteAddress: string | undefined, forwardedFor?: string): IncomingMessage {
  const socket = { remoteAddress };
  return {
    socket,
    connection: socket,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('TRUSTED_PROXIES', () => {
  it('takes IPs, CIDR ranges and proxy-addr names, and is empty by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.1, 10.1.0.0/16 ,loopback, fd00::/8' }).trustedProxies).toEqual([
      '10.0.0.1',
      '10.1.0.0/16',
      'loopback',
      'fd00::/8',
    ]);
  });

  it.each(['10.0.0.0/33', 'proxy.internal', '10.0.0'])('refuses %s', (entry) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1, ${entry}` })).toThrow(ConfigError);
  });

  it('reads X-Forwarded-For only from a trusted peer, from the right past each trusted hop', () => {
    const none = clientAddressReader([]);
    expect(none(requestFrom('10.0.0.5', '203.0.113.1'))).toBe('10.0.0.5');
    const behindProxies = clientAddressReader(['10.0.0.0/8']);
    expect(behindProxies(requestFrom('192.0.2.9', '203.0.113.1'))).toBe('192.0.2.9');
    expect(behindProxies(requestFrom('10.0.0.5', '203.0.113.1'))).toBe('203.0.113.1');
    // The client's own claim (leftmost) is not believed: the last hop before the trusted ones is.
    expect(behindProxies(requestFrom('10.0.0.5', '198.51.100.7, 203.0.113.1, 10.2.3.4'))).toBe('203.0.113.1');
    expect(behindProxies(requestFrom(undefined, '203.0.113.1'))).toBe('unknown');
  });
});
