/**
 * Hostile upstreams against the upstream client:
 * a body that drips, bodies that are too large, keys whose requests hang, and error
 * texts that echo the key in disguise. A real `node:http` server on 127.0.0.1 port 0
 * plays the upstream; timings are bounded, never measured against a baseline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { UpstreamError } from '../../src/errors/gateway-error';
import { UpstreamClient } from '../../src/upstream/client';
import type { UpstreamObservation } from '../../src/upstream/client';
import { ENDPOINTS } from '../../src/upstream/endpoints';
import { Redactor } from '../../src/upstream/redact';

const KEY = 'Hostile-Key-0123456789abcdef';

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('hostile upstream over real HTTP', () => {
  let server: http.Server;
  let baseUrl: string;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  const timers = new Set<NodeJS.Timeout>();
  const clients: UpstreamClient[] = [];

  beforeEach(async () => {
    handler = (_req, res) => res.end();
    server = http.createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/req`;
  });

  afterEach(async () => {
    for (const timer of timers) clearInterval(timer);
    timers.clear();
    for (const client of clients.splice(0)) await client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function client(options: Partial<ConstructorParameters<typeof UpstreamClient>[0]> = {}): UpstreamClient {
    const created = new UpstreamClient({ baseUrl, timeoutMs: 1000, ...options });
    clients.push(created);
    return created;
  }

  it('a body dripping one byte every 20 ms fails with UPSTREAM_TIMEOUT at the total deadline (it never idles long enough for an idle timer)', async () => {
    let requests = 0;
    handler = (_req, res) => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (requests === 1) {
        res.end('[]'); // a warm-up answer, so that loading code is not counted against the deadline
        return;
      }
      res.write('[');
      // Never idle long enough for an idle timer: only a total deadline ends this.
      const drip = setInterval(() => res.write(' '), 20);
      timers.add(drip);
      res.on('close', () => clearInterval(drip));
    };
    const deadlineMs = 1500;
    const upstream = client({ timeoutMs: deadlineMs });
    await upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY });
    const observed: UpstreamObservation[] = [];
    upstream.observe((o) => observed.push(o));
    const started = performance.now();
    const error = await failure(upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
    const elapsed = performance.now() - started;
    // Only a lower bound: a loaded machine can only make the answer later, and how much later
    // is the benchmark's business, not a test's.
    expect(elapsed).toBeGreaterThanOrEqual(deadlineMs * 0.9);
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(error.upstream.status).toBeNull();
    expect(error.upstream.message).toContain(`${deadlineMs} ms deadline`);
    expect(observed.map((o) => o.errorCode)).toEqual(['UPSTREAM_TIMEOUT']);
  });

  it('a body over UPSTREAM_MAX_BODY_BYTES is abandoned while streaming (UPSTREAM_ERROR), never read to its end', async () => {
    let written = 0;
    let closed = false;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      // Writes as long as the client reads: 64 MB if nobody stops it.
      const pump = (): void => {
        while (written < 64 * 1024 * 1024 && !closed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    };
    const upstream = client({ maxBodyBytes: 256 * 1024 });
    const error = await failure(upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.upstream.message).toContain('larger than the limit of 262144 bytes');
    // The server was stopped by the abandoned connection, far from its 64 MB.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a declared Content-Length over the limit is refused before reading the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('[');
    };
    const upstream = client({ maxBodyBytes: 1024 });
    const error = await failure(upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: KEY }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.upstream.message).toContain('larger than the limit');
  });

  it('60 keys with hung requests (more than the old pool of 256) do not delay another key', async () => {
    const hung: http.ServerResponse[] = [];
    let arrivedHung = 0;
    let notifyHung: () => void = () => undefined;
    const allHung = new Promise<void>((resolve) => {
      notifyHung = resolve;
    });
    const perKey = 4;
    const hungKeys = 60;
    handler = (req, res) => {
      if (req.headers.authorization === 'Bearer healthy-key-000000') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[]');
        return;
      }
      hung.push(res);
      arrivedHung += 1;
      if (arrivedHung === hungKeys * perKey) notifyHung();
    };
    const upstream = client({ timeoutMs: 60_000, connectionsPerKey: perKey });
    const pending: Array<Promise<unknown>> = [];
    for (let k = 0; k < hungKeys; k += 1) {
      // Twice the per-key limit: the extra requests wait for the key's own connections.
      for (let r = 0; r < perKey * 2; r += 1) {
        pending.push(
          upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: `hung-key-${k}-padding` }).catch(() => undefined),
        );
      }
    }
    await allHung;
    expect(arrivedHung).toBe(hungKeys * perKey);
    expect(upstream.connectionGate.active).toBe(hungKeys * perKey);
    // The unrelated key is answered while every hung request is still open.
    await expect(upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey: 'healthy-key-000000' })).resolves.toEqual([]);
    expect(hung.every((res) => !res.writableEnded)).toBe(true);
    handler = (_req, res) => res.end('[]');
    for (const res of hung) res.end('[]');
    await Promise.all(pending);
    expect(upstream.connectionGate.active).toBe(0);
  });
});

describe('redaction of every form of the key and secret', () => {
  const SECRET = 'S3cretValue-XYZ-987654';
  let agent: MockAgent;
  let upstream: UpstreamClient;

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    upstream = new UpstreamClient({ baseUrl: 'https://api.test/req', timeoutMs: 1000, dispatcher: agent });
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await upstream.close();
    await agent.close();
  });

  async function echo(message: string, apiKey = KEY, secret?: string): Promise<UpstreamError> {
    agent
      .get('https://api.test')
      .intercept({ path: secret ? '/req/factory/options' : '/req/factory/list/', method: secret ? 'POST' : 'GET' })
      .reply(400, JSON.stringify({ statusCode: 400, message, error: 'Bad Request' }), {
        headers: { 'content-type': 'application/json' },
      });
    return failure(
      secret
        ? upstream.call({
            endpoint: ENDPOINTS.factoryOptionUpdate,
            apiKey,
            body: { apiSecret: secret, factoryId: 'f', option: 1, title: 't', data: 'd' },
          })
        : upstream.call({ endpoint: ENDPOINTS.factoryList, apiKey }),
    );
  }

  const forms: Array<[string, (key: string) => string]> = [
    ['exact', (key) => key],
    ['upper case', (key) => key.toUpperCase()],
    ['lower case', (key) => key.toLowerCase()],
    ['base64', (key) => Buffer.from(key).toString('base64')],
    ['base64 of "Bearer <key>"', (key) => Buffer.from(`Bearer ${key}`).toString('base64')],
    ['base64url', (key) => Buffer.from(key).toString('base64url')],
    ['URL-encoded', (key) => encodeURIComponent(key)],
    ['reversed', (key) => [...key].reverse().join('')],
    [
      'reversed, a piece of 10 characters in upper case',
      (key) => [...key].reverse().join('').slice(3, 13).toUpperCase(),
    ],
    ['a prefix of 8 characters', (key) => key.slice(0, 8)],
    ['a middle piece of 9 characters', (key) => key.slice(5, 14)],
    ['a suffix of 8 characters in upper case', (key) => key.slice(-8).toUpperCase()],
    ['hex', (key) => Buffer.from(key).toString('hex')],
    ['hex in upper case', (key) => Buffer.from(key).toString('hex').toUpperCase()],
    ['hex in pairs separated by colons', (key) => (Buffer.from(key).toString('hex').match(/../g) ?? []).join(':')],
    ['spread out by spaces', (key) => [...key].join(' ')],
    ['spread out by dashes', (key) => [...key].join('-')],
    ['spread out by dots, in upper case', (key) => [...key].join('.').toUpperCase()],
    ['spread out by commas and spaces', (key) => [...key].join(', ')],
  ];

  it.each(forms)('removes the key echoed %s', async (_name, form) => {
    const error = await echo(`invalid token "${form(KEY)}" given`);
    const shown = JSON.stringify({ message: error.message, extensions: error.extensions });
    expect(shown).not.toContain(form(KEY));
    expect(error.detail).not.toContain(form(KEY)); // what the log gets
    expect(error.upstream.message).toContain('[redacted]');
    expect(error.upstream.message).toMatch(/^invalid token "/);
  });

  it.each(forms)('removes the secret of a write echoed %s', async (_name, form) => {
    const error = await echo(`bad secret ${form(SECRET)}!`, KEY, SECRET);
    expect(JSON.stringify(error.extensions) + error.message + String(error.detail)).not.toContain(form(SECRET));
  });

  it('withholds the whole message when the key is shorter than 8 characters', async () => {
    const error = await echo('token abc unknown', 'abc');
    expect(error.upstream.message).not.toContain('abc');
    expect(error.upstream.message).toContain('withheld');
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
  });

  it('keeps texts without the key untouched, and short accidental overlaps (< 8 characters)', () => {
    const redactor = new Redactor([KEY]);
    expect(redactor.redact('Hostile is a word; 0123456 too')).toBe('Hostile is a word; 0123456 too');
    expect(redactor.redact(`a ${KEY} b ${KEY.toUpperCase()} c`)).toBe('a [redacted] b [redacted] c');
  });
});
