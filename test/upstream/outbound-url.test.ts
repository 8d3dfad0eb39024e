/**
 * The outbound URL rules (webhooks today, alert webhooks next): https only to public
 * addresses, plain http only to loopback, private, link-local, loopback and metadata
 * addresses refused in IPv4, IPv6 and IPv4-mapped IPv6 unless an operator allows the host,
 * checked after DNS resolution and again on the address the connection uses (a name that
 * resolves differently the second time never connects). Resolvers are fixed functions: no DNS.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import {
  OutboundUrlError,
  checkOutboundUrl,
  isBlockedAddress,
  resolveOutboundUrl,
} from '../../src/upstream/outbound-url';
import type { HostResolver } from '../../src/upstream/outbound-url';
import { webhookPoster } from '../../src/upstream/webhook-post';

const NONE = { allowHosts: [] };
const resolvesTo =
  (...addresses: string[]): HostResolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('outbound URL rules', () => {
  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://127.0.0.1:6379/',
    'https://[::1]/',
    'https://[fe80::1]/',
    'https://[fd00:ec2::254]/',
    'https://192.168.1.1/',
    'https://172.16.0.1/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://localhost/',
    'https://2130706433/', // 127.0.0.1 as one number
    'http://shop.example/hook',
    'http://10.0.0.1/hook',
    'ftp://shop.example/',
    'https://user:pass@shop.example/',
    'not a url',
  ])('refuses %s before any DNS', (url) => {
    expect(() => checkOutboundUrl(url, NONE)).toThrow(OutboundUrlError);
  });

  it.each([
    'https://shop.example/hook',
    'https://93.184.215.14/',
    'https://[2606:4700::1111]/',
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://[::1]:9000/',
  ])('accepts %s', (url) => {
    expect(checkOutboundUrl(url, NONE).toString()).toBe(new URL(url).toString());
  });

  it('classifies addresses with IPv4-mapped IPv6 as their IPv4 address', () => {
    expect(isBlockedAddress('::ffff:7f00:1')).toBe(true);
    expect(isBlockedAddress('::ffff:169.254.169.254')).toBe(true);
    expect(isBlockedAddress('::ffff:93.184.215.14')).toBe(false);
    expect(isBlockedAddress('shop.example')).toBe(false);
  });

  it('checks every address a name resolves to, and lets an operator allow a host by name', async () => {
    await expect(resolveOutboundUrl('https://shop.example/', NONE, resolvesTo('93.184.215.14'))).resolves.toMatchObject(
      { addresses: ['93.184.215.14'] },
    );
    await expect(
      resolveOutboundUrl('https://inside.example/', NONE, resolvesTo('93.184.215.14', '10.1.2.3')),
    ).rejects.toThrow(/inside\.example, which resolves to 10\.1\.2\.3/);
    await expect(resolveOutboundUrl('https://meta.example/', NONE, resolvesTo('::ffff:a9fe:a9fe'))).rejects.toThrow(
      OutboundUrlError,
    );
    await expect(resolveOutboundUrl('http://localhost/', NONE, resolvesTo('10.0.0.1'))).rejects.toThrow(
      /http only to this machine/,
    );
    await expect(
      resolveOutboundUrl('https://gone.example/', NONE, () => Promise.reject(new Error('ENOTFOUND'))),
    ).rejects.toThrow(/does not resolve/);
    await expect(
      resolveOutboundUrl('https://inside.example/', { allowHosts: ['Inside.Example'] }, resolvesTo('10.1.2.3')),
    ).resolves.toMatchObject({ addresses: ['10.1.2.3'] });
    await expect(resolveOutboundUrl('https://10.0.0.1/', { allowHosts: ['10.0.0.1'] })).resolves.toMatchObject({
      addresses: ['10.0.0.1'],
    });
  });

  describe('at delivery', () => {
    let server: Server;
    let connections: number;
    let port: number;
    beforeEach(async () => {
      connections = 0;
      server = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
    });
    afterEach(async () => {
      server.close();
      await once(server, 'close');
    });

    /** Public at the check, 127.0.0.1 when the connector looks the name up (DNS rebinding). */
    function rebinding(): HostResolver {
      let calls = 0;
      return (hostname) => {
        calls += 1;
        return resolvesTo(calls === 1 ? '93.184.215.14' : '127.0.0.1')(hostname);
      };
    }

    it('refuses a URL before connecting, saying which rule', async () => {
      const post = webhookPoster({ allowHosts: [], timeoutMs: 5_000 });
      await expect(post(`https://127.0.0.1:${port}/`, {}, '{}')).resolves.toEqual({
        status: 0,
        problem: expect.stringMatching(/^refused: https to 127\.0\.0\.1/) as unknown,
      });
      expect(connections).toBe(0);
    });

    it('checks the address the connection uses: a name that resolves to loopback the second time never connects', async () => {
      const post = webhookPoster({ allowHosts: [], timeoutMs: 5_000, resolve: rebinding() });
      expect((await post(`https://rebind.example:${port}/`, {}, '{}')).status).toBe(0);
      expect(connections).toBe(0);
      // The same with the host allowed: the connector's lookup is the one that answered 127.0.0.1.
      const allowed = webhookPoster({ allowHosts: ['rebind.example'], timeoutMs: 5_000, resolve: rebinding() });
      expect((await allowed(`https://rebind.example:${port}/`, {}, '{}')).status).toBe(0);
      expect(connections).toBe(1);
    });
  });
});
