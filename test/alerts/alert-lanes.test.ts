/**
 * Alert delivery over real sockets: each endpoint on its own lane (a hanging receiver never
 * holds up another), and the outbound URL rules (private and metadata addresses refused
 * after DNS, FAILED at once with no request sent; a redirect never followed). Receivers are
 * local HTTP servers on 127.0.0.1, port 0 (plain http is allowed to loopback); the test
 * waits for their events, never for time.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertOutbox } from '../../src/alerts/alert-outbox';
import { T0, anEvent, anOutbox, resolvesTo } from './alert-helpers';

async function receiver(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/1/token` };
}

describe('alert lanes and URL rules', () => {
  const clock = { now: T0 };
  const servers: Server[] = [];
  const held: ServerResponse[] = [];
  const opened: AlertOutbox[] = [];

  afterEach(async () => {
    for (const response of held.splice(0)) response.end();
    for (const outbox of opened.splice(0)) await outbox.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  async function outbox(errors: string[] = [], resolve = resolvesTo('127.0.0.1')): Promise<AlertOutbox> {
    const made = await anOutbox(clock, { timeoutMs: 600_000, errors, resolve });
    opened.push(made);
    return made;
  }

  it('delivers to a healthy endpoint while another one hangs', async () => {
    const hanging = await receiver((_request, response) => held.push(response)); // never answers
    const healthy = await receiver((_request, response) => response.writeHead(204).end());
    servers.push(hanging.server, healthy.server);
    const alerts = await outbox();
    // The hanging one first, with a timeout far beyond the test's: only its own lane waits.
    await alerts.enqueue(anEvent('evt-hang'), { kind: 'DISCORD', url: hanging.url });
    await alerts.enqueue(anEvent('evt-hang-2'), { kind: 'DISCORD', url: hanging.url });
    await alerts.enqueue(anEvent('evt-ok'), { kind: 'DISCORD', url: healthy.url });
    const hangingGotIt = once(hanging.server, 'request');
    const delivering = alerts.deliverDue();
    await hangingGotIt;
    for (
      let turn = 0;
      (await alerts.deliveries(50)).find((each) => each.id === 'evt-ok')?.status !== 'DELIVERED';
      turn += 1
    ) {
      if (turn > 100_000) throw new Error('the healthy endpoint was never delivered to');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(held).toHaveLength(1);
    // The hanging lane holds its own second delivery; another round starts no second lane for it.
    await alerts.deliverDue();
    expect(held).toHaveLength(1);
    expect(
      (await alerts.deliveries(50))
        .filter((each) => each.status === 'PENDING')
        .map((each) => each.id)
        .sort(),
    ).toEqual(['evt-hang', 'evt-hang-2']);
    held[0]?.writeHead(204).end();
    await once(hanging.server, 'request'); // the second one, once the first was answered
    held[1]?.writeHead(204).end();
    await delivering;
    expect((await alerts.deliveries(50)).map((each) => each.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
  });

  it.each([
    ['the cloud metadata address', 'https://metadata.example/api/webhooks/1/secret-token', '169.254.169.254'],
    ['a private address', 'https://intranet.example/api/webhooks/1/secret-token', '10.0.0.7'],
    ['plain http off this machine', 'http://discord.example/api/webhooks/1/secret-token', '93.184.215.14'],
  ])('refuses %s after DNS, FAILED at once with nothing sent', async (_name, url, address) => {
    const errors: string[] = [];
    const alerts = await outbox(errors, resolvesTo(address));
    await alerts.enqueue(anEvent('evt-refused'), { kind: 'DISCORD', url });
    await alerts.deliverDue();
    expect(await alerts.deliveries(1)).toMatchObject([{ status: 'FAILED', attempts: 1, lastStatusCode: null }]);
    expect(errors.join('\n')).toContain('refused');
    expect(errors.join('\n')).not.toContain('secret-token');
  });

  it('does not follow a redirect', async () => {
    const target = await receiver((_request, response) => response.writeHead(204).end());
    const redirecting = await receiver((_request, response) => response.writeHead(307, { location: target.url }).end());
    servers.push(target.server, redirecting.server);
    let followed = 0;
    target.server.on('request', () => (followed += 1));
    const alerts = await outbox();
    await alerts.enqueue(anEvent('evt-redirect'), {
      kind: 'WEBHOOK',
      url: redirecting.url,
      secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
    });
    await alerts.deliverDue();
    expect(followed).toBe(0);
    expect(await alerts.deliveries(1)).toMatchObject([{ status: 'PENDING', lastStatusCode: 307 }]);
  });
});
