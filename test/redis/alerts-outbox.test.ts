/**
 * The alerts outbox in a real Redis, shared by two replicas: an event both replicas enqueue
 * is stored once, both delivering at once make one attempt, and a replica started later
 * (a restart) delivers what another left pending, with the Discord URL never in Redis in
 * clear. Discord is an undici MockAgent; time is the outboxes' injected clock.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { MockAgent } from 'undici';
import type { AlertOutbox } from '../../src/alerts/alert-outbox';
import { RedisAlertOutboxStore } from '../../src/alerts/alert-outbox.store';
import { retryDelayMs } from '../../src/upstream/delivery-lanes';
import { DISCORD_TOKEN, DISCORD_URL, T0, anEvent, anOutbox, discordStandIn } from '../alerts/alert-helpers';
import type { Received } from '../alerts/alert-helpers';
import { describeWithRedis, startTestRedis } from '../support/redis';
import type { TestRedis } from '../support/redis';

describeWithRedis('the alerts outbox in Redis', () => {
  const clock = { now: T0 };
  let redis: TestRedis;
  const opened: AlertOutbox[] = [];
  let prefix: string;
  /** The Discord stand-in, what it got and the statuses it answers with next. */
  let agent: MockAgent;
  let received: Received[];
  let answers: number[];

  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await redis.stop();
  });

  beforeEach(() => {
    prefix = `alerts-test-${randomBytes(4).toString('hex')}:`;
    clock.now = T0;
    answers = [];
    ({ agent, received } = discordStandIn(() => ({ statusCode: answers.shift() ?? 204 })));
  });

  afterEach(async () => {
    for (const outbox of opened.splice(0)) await outbox.close();
    await agent.close();
  });

  async function replica(): Promise<AlertOutbox> {
    const made = await anOutbox(clock, {
      dispatcher: agent,
      store: new RedisAlertOutboxStore({ redisUrl: redis.url, redisPrefix: prefix }),
    });
    opened.push(made);
    return made;
  }

  it('stores an event once and makes one attempt when both replicas deliver', async () => {
    const [a, b] = [await replica(), await replica()];
    await Promise.all([
      a.enqueue(anEvent('evt-both'), { kind: 'DISCORD', url: DISCORD_URL }),
      b.enqueue(anEvent('evt-both'), { kind: 'DISCORD', url: DISCORD_URL }),
    ]);
    await Promise.all([a.deliverDue(), b.deliverDue()]);
    expect(received).toHaveLength(1);
    expect(await b.deliveries(50)).toMatchObject([{ id: 'evt-both', status: 'DELIVERED', attempts: 1 }]);
  });

  it('delivers after a restart what was pending, the URL sealed in Redis', async () => {
    const first = await replica();
    answers.push(500);
    await first.enqueue(anEvent('evt-restart'), { kind: 'DISCORD', url: DISCORD_URL });
    await first.deliverDue();
    const client = new Redis(redis.url);
    const stored = await client.hgetall(`${prefix}alerts:outbox`);
    client.disconnect();
    expect(Object.keys(stored)).toEqual(['evt-restart']);
    expect(JSON.stringify(stored)).not.toContain(DISCORD_TOKEN);
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const second = await replica();
    clock.now += retryDelayMs(1);
    await second.deliverDue();
    expect(received).toHaveLength(2);
    expect(await second.deliveries(1)).toMatchObject([{ status: 'DELIVERED', attempts: 2 }]);
  });
});
