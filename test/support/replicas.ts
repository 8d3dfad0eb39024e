/**
 * Two gateway replicas sharing a real Redis and one simulator, on one manual clock: the
 * setup of the Redis tests of subscriptions and payments. Call {@link useTwoReplicas}
 * inside `describeWithRedis`; it starts Redis and the simulator once for the block, and
 * fresh replicas (with a fresh Redis prefix) for each test.
 */
import type { Client } from 'graphql-ws';
import { loadConfig } from '../../src/config';
import { startGateway } from '../../src/server';
import type { Gateway } from '../../src/server';
import { startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { ManualClock } from './poll-clock';
import { startTestRedis, TEST_REDIS_TIMEOUT_MS } from './redis';
import type { TestRedis } from './redis';
import { UNLIMITED_SIMULATOR } from './upstream-limit';

/** What {@link useTwoReplicas} gives a test (read inside the test: each test gets new ones). */
export interface TwoReplicas {
  /** Replica A. */
  readonly a: Gateway;
  /** Replica B. */
  readonly b: Gateway;
  /** The clock both poll on. */
  readonly clock: ManualClock;
  /** The shared simulator (unlimited). */
  readonly simulator: Simulator;
  /** Clients the test opened: disposed after it, before the replicas stop. */
  readonly clients: Client[];
}

/**
 * Registers the hooks of two replicas sharing Redis (see the module comment).
 *
 * @param name - part of the Redis prefix, so tests of different files never share keys
 */
export function useTwoReplicas(name: string): TwoReplicas {
  let redis: TestRedis | undefined;
  let simulator: Simulator | undefined;
  let a: Gateway | undefined;
  let b: Gateway | undefined;
  let clock = new ManualClock();
  const clients: Client[] = [];
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started: read it inside a test`);
    return value;
  };

  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = await startSimulator(UNLIMITED_SIMULATOR);
  });
  afterAll(async () => {
    await simulator?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    clock = new ManualClock();
    const prefix = `statev-${name}-${process.pid}-${Date.now()}:`;
    const make = (): Promise<Gateway> =>
      startGateway(
        loadConfig(
          {},
          {
            port: 0,
            host: '127.0.0.1',
            upstreamBaseUrl: started(simulator, 'the simulator').baseUrl,
            redisUrl: started(redis, 'Redis').url,
            redisPrefix: prefix,
            redisTimeoutMs: TEST_REDIS_TIMEOUT_MS,
            responseCacheEnabled: false,
            cacheFile: null,
            upstreamRateLimit: null,
            logLevel: 'silent',
          },
        ),
        { now: clock.now, pollClock: clock },
      );
    a = await make();
    b = await make();
    await a.shared?.whenUp();
    await b.shared?.whenUp();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((each) => each.dispose()));
    await a?.stop();
    await b?.stop();
  });

  return {
    get a() {
      return started(a, 'replica A');
    },
    get b() {
      return started(b, 'replica B');
    },
    get clock() {
      return clock;
    },
    get simulator() {
      return started(simulator, 'the simulator');
    },
    clients,
  };
}
