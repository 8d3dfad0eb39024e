/**
 * Two gateway replicas, one simulator, one real Redis (see test/support/redis.ts):
 * what one replica learns, the other uses; Redis failing never fails an operation.
 */
import { Writable } from 'node:stream';
import { print } from 'graphql';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config';
import type { GatewayConfig } from '../../src/config';
import { startGateway } from '../../src/server';
import type { Gateway } from '../../src/server';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { CompanyPageDocument, FactoryOptionsDocument, UpdateFactoryOptionMessageOnlyDocument } from '../generated/graphql';
import { startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';
import type { Result } from '../support/stack';

let redis: TestRedis | null;
let simulator: Simulator;
let prefixCounter = 0;

beforeAll(async () => {
  redis = await startTestRedis();
  simulator = await startSimulator();
});
afterAll(async () => {
  await simulator?.close();
  await redis?.stop();
});
beforeEach(() => {
  simulator.reset();
});

/** Collects pino's JSON lines. */
class Lines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString().split('\n')) if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

interface Replicas {
  a: Gateway;
  b: Gateway;
  logsA: Lines;
  prefix: string;
  close(): Promise<void>;
}

async function replicas(config: Partial<GatewayConfig> = {}): Promise<Replicas> {
  if (!redis) throw new Error('no redis');
  prefixCounter += 1;
  const prefix = `statev-test-${process.pid}-${prefixCounter}:`;
  const make = (logs?: Lines): Promise<Gateway> =>
    startGateway(
      loadConfig(
        {},
        {
          port: 0,
          host: '127.0.0.1',
          upstreamBaseUrl: simulator.baseUrl,
          redisUrl: redis?.url ?? null,
          redisPrefix: prefix,
          redisTimeoutMs: 200,
          responseCacheEnabled: false,
          logLevel: logs ? 'info' : 'silent',
          ...config,
        },
      ),
      { logDestination: logs },
    );
  const logsA = new Lines();
  const a = await make(logsA);
  const b = await make();
  await a.shared?.whenUp();
  await b.shared?.whenUp();
  return {
    a,
    b,
    logsA,
    prefix,
    async close() {
      await a.stop();
      await b.stop();
    },
  };
}

async function post(gateway: Gateway, body: unknown, key: string = DEMO_KEYS.premium.key, headers: Record<string, string> = {}): Promise<Result<Record<string, unknown>>> {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Result<Record<string, unknown>>;
}

const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };
const upstreamOf = (result: Result<unknown>): Record<string, number> => result.extensions?.upstream as Record<string, number>;

const describeRedis = (name: string, body: () => void): void => {
  describe(name, () => {
    beforeAll(() => {
      if (!redis) console.warn(`skipped: ${name}`);
    });
    body();
  });
};
const itRedis = (name: string, test: () => Promise<void>, timeout?: number): void => {
  it(name, async () => {
    if (!redis) return;
    await test();
  }, timeout);
};

describeRedis('shared cache', () => {
  itRedis('what replica A fetched, replica B serves from the shared cache with zero upstream requests', async () => {
    const r = await replicas();
    try {
      const first = await post(r.a, page);
      expect(first.errors).toBeUndefined();
      const sent = simulator.requests.length;
      expect(sent).toBeGreaterThan(0);

      const second = await post(r.b, page);
      expect(second.errors).toBeUndefined();
      expect(second.data).toEqual(first.data);
      expect(simulator.requests).toHaveLength(sent);
      expect(upstreamOf(second)).toMatchObject({ requests: 0 });
      expect(upstreamOf(second).cacheHits).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  });

  itRedis('coalesces one request across replicas: concurrent identical operations on A and B make each upstream request once', async () => {
    const r = await replicas();
    simulator.setLatency(150);
    try {
      const results = await Promise.all([post(r.a, page), post(r.b, page), post(r.a, page), post(r.b, page)]);
      for (const result of results) expect(result.errors).toBeUndefined();
      const paths = simulator.requests.map((request) => `${request.method} ${request.path}`);
      expect(new Set(paths).size).toBe(paths.length);
    } finally {
      simulator.setLatency(0);
      await r.close();
    }
  });

  itRedis('a write through A invalidates the option reads B cached', async () => {
    const r = await replicas();
    try {
      const options = { query: print(FactoryOptionsDocument), variables: { id: FIXTURE_IDS.shop, slot: 4 } };
      expect((await post(r.b, options)).data).toMatchObject({ factory: { option: null } });
      // B applies A's invalidation when the Redis message arrives: wait for that event.
      const invalidatedOnB = new Promise<void>((resolve) => {
        const off = r.b.economy.onInvalidated(() => {
          off();
          resolve();
        });
      });
      const write = await post(
        r.a,
        { query: print(UpdateFactoryOptionMessageOnlyDocument), variables: { input: { factoryId: FIXTURE_IDS.shop, slot: 4, title: 'Geteilt', data: 'über Redis' } } },
        DEMO_KEYS.premium.key,
        { 'x-api-secret': DEMO_KEYS.premium.secret },
      );
      expect(write.errors).toBeUndefined();
      await invalidatedOnB;
      const after = await post(r.b, options);
      expect(after.data).toMatchObject({ factory: { option: { slot: 4, title: 'Geteilt', data: 'über Redis' } } });
    } finally {
      await r.close();
    }
  });

  itRedis('keeps keys hashed and gives every Redis entry a TTL', async () => {
    const r = await replicas({ upstreamRatePerMinute: 100 });
    const client = new Redis(redis?.url ?? '');
    try {
      await post(r.a, page);
      await post(r.b, page, DEMO_KEYS.basic.key);
      const keys = await client.keys(`${r.prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).not.toContain(DEMO_KEYS.premium.key);
        expect(key).not.toContain(DEMO_KEYS.basic.key);
        expect(await client.pttl(key)).toBeGreaterThan(0);
        const value = (await client.type(key)) === 'string' ? await client.get(key) : '';
        expect(value ?? '').not.toContain(DEMO_KEYS.premium.key);
      }
    } finally {
      client.disconnect();
      await r.close();
    }
  });
});

describeRedis('shared limits', () => {
  itRedis('a 429 seen by replica A stops replica B too until Retry-After', async () => {
    const r = await replicas();
    simulator.setRateLimit({ requests: 1, windowSeconds: 30 });
    try {
      const key = 'sim-key-777';
      const first = await post(r.a, { query: '{ factories { id } buildings { id } }' }, key);
      expect(first.errors?.map((error) => error.extensions?.code)).toEqual(['RATE_LIMITED']);
      const sent = simulator.requests.length;
      expect(simulator.requests.filter((request) => request.status === 429)).toHaveLength(1);

      const onB = await post(r.b, { query: '{ myImportAuctions { id } }' }, key);
      expect(onB.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(onB.errors?.[0]?.extensions?.retryAfterSeconds).toBeGreaterThan(0);
      expect(simulator.requests).toHaveLength(sent); // B sent nothing
    } finally {
      simulator.setRateLimit(undefined);
      await r.close();
    }
  });

  itRedis('a budget of N requests per minute holds across both replicas together', async () => {
    const r = await replicas({ upstreamRatePerMinute: 4, upstreamQueueTimeoutMs: 0 });
    try {
      const key = 'sim-key-778';
      const reads = [1, 2, 3, 4, 5, 6, 7, 8].map((slot) => ({ query: `{ factory(id: "${FIXTURE_IDS.shop}") { option(slot: ${slot}) { title } } }` }));
      const results: Array<Result<Record<string, unknown>>> = [];
      for (const [index, read] of reads.entries()) results.push(await post(index % 2 === 0 ? r.a : r.b, read, key, { 'cache-control': 'no-cache' }));
      const sent = simulator.requests.filter((request) => request.keyLabel === 'generated').length;
      expect(sent).toBe(4);
      const limited = results.filter((result) => result.errors?.some((error) => error.extensions?.code === 'RATE_LIMITED'));
      expect(limited.length).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  });
});

describeRedis('Redis failing', () => {
  itRedis(
    'stopping Redis fails no operation; it is logged once, counted, and the gateway reconnects by itself',
    async () => {
      if (!redis?.owned) return; // cannot stop a Redis we did not start
      const r = await replicas();
      try {
        expect((await post(r.a, page)).errors).toBeUndefined();
        await redis.stop();
        for (let i = 0; i < 3; i += 1) {
          const during = await post(r.a, page, `sim-key-${900 + i}`);
          expect(during.errors).toBeUndefined();
          expect(during.data).toMatchObject({ factory: { id: FIXTURE_IDS.shop } });
        }
        const downLines = r.logsA.lines.filter((line) => line.redis === 'down');
        expect(downLines).toHaveLength(1);
        const metrics = await (await fetch(`${r.a.url}/metrics`)).text();
        expect(metrics).toMatch(/statev_redis_errors_total [1-9]/);
        expect(metrics).toMatch(/statev_redis_up 0/);

        await redis.start();
        await r.a.shared?.whenUp();
        const back = await (await fetch(`${r.a.url}/metrics`)).text();
        expect(back).toMatch(/statev_redis_up 1/);
        expect(r.logsA.lines.filter((line) => line.redis === 'up')).toHaveLength(1);
        expect((await post(r.a, page)).errors).toBeUndefined();
      } finally {
        await r.close();
      }
    },
    20_000,
  );

  itRedis('a slow Redis (commands past REDIS_TIMEOUT_MS) fails no operation', async () => {
    const r = await replicas({ redisTimeoutMs: 50 });
    const blocker = new Redis(redis?.url ?? '');
    try {
      const sleeping = blocker.call('DEBUG', 'SLEEP', '0.5').catch(() => undefined);
      const during = await post(r.a, page, 'sim-key-950');
      expect(during.errors).toBeUndefined();
      expect(during.data).toMatchObject({ factory: { id: FIXTURE_IDS.shop } });
      await sleeping;
      const metrics = await (await fetch(`${r.a.url}/metrics`)).text();
      expect(metrics).toMatch(/statev_redis_errors_total [1-9]/);
    } finally {
      blocker.disconnect();
      await r.close();
    }
  });
});
