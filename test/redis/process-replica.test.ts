/**
 * Replica B as a real second process (`src/main.ts`, as `npm start` runs it) next to
 * replica A in this process, one simulator, one Redis: what A fetched, B serves from
 * the shared cache without any upstream request.
 */
import type { ChildProcess } from 'node:child_process';
import { print } from 'graphql';
import { FIXTURE_IDS } from '../../src/simulator';
import { CompanyPageDocument } from '../generated/graphql';
import {
  describeWithRedis,
  postToProcess,
  startGatewayProcess,
  startStack,
  startTestRedis,
  stopGatewayProcess,
  TEST_REDIS_TIMEOUT_MS,
} from '../support';
import type { HttpStack, TestRedis } from '../support';

let redis: TestRedis | undefined;
let a: HttpStack | undefined;
let b: ChildProcess | null = null;
let bUrl = '';
const prefix = `statev-process-${process.pid}:`;

describeWithRedis('a replica in another process', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
    a = await startStack({ http: true, redis, config: { redisPrefix: prefix } });
    const started = await startGatewayProcess({
      PORT: '0',
      HOST: '127.0.0.1',
      STATEV_BASE_URL: a.simulator.baseUrl,
      UPSTREAM_RATE_LIMIT: 'off', // as in the first replica (the test stack's default)
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      REDIS_TIMEOUT_MS: String(TEST_REDIS_TIMEOUT_MS), // as in the first replica (see TEST_REDIS_TIMEOUT_MS)
      RESPONSE_CACHE_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    });
    b = started.child;
    bUrl = started.url;
    // B listens after waiting at most 2 s for Redis; /readyz says when it has answered (on a
    // loaded machine that can be later). Each try is one round trip, not a delay.
    for (;;) {
      const readiness = await fetch(`${bUrl}/readyz`);
      await readiness.text();
      if (readiness.status === 200) break;
    }
  }, 60_000);

  afterAll(async () => {
    if (b) await stopGatewayProcess(b);
    await a?.close();
    await redis?.stop();
  });

  it('what replica A fetched, replica B (another process) serves with zero upstream requests', async () => {
    if (!a) throw new Error('no stack');
    const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };
    const first = await postToProcess(a.gateway.url, page);
    expect(first.errors).toBeUndefined();
    const sent = a.simulator.requests.length;
    expect(sent).toBeGreaterThan(0);

    const second = await postToProcess(bUrl, page);
    expect(second.errors).toBeUndefined();
    expect(second.data).toEqual(first.data);
    expect(second.extensions?.upstream?.requests).toBe(0);
    expect(a.simulator.requests).toHaveLength(sent);
  });
});
