import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { listenerPort } from '../../scripts/listener-port';

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
}

describe('listenerPort', () => {
  it('picks a port below the ephemeral range that a server can then listen on', async () => {
    const low = ephemeralLow();
    for (let i = 0; i < 5; i++) {
      const port = await listenerPort();
      expect(port).toBeGreaterThanOrEqual(1024);
      expect(port).toBeLessThan(low);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
