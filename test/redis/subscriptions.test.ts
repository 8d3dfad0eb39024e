/**
 * Subscriptions on two replicas sharing a real Redis (test/support/redis.ts): exactly
 * one replica polls each key and resource, both deliver its events, and the other one
 * takes over when the polling replica's last subscriber leaves. Both replicas run their
 * pollers on one manual clock.
 */
import { once } from 'node:events';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { describeWithRedis, useTwoReplicas } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

const INTERVAL_MS = 60_000;
const COUNTER_ROUTE = 'GET /factory/counter/{id}';
const COUNTER = `subscription($id: ID!) { counterChanged(factoryId: $id) { changes { item amountAfter } } }`;

describeWithRedis('subscriptions on two replicas sharing Redis', () => {
  const replicas = useTwoReplicas('subs');

  it('has one poller for a key and resource, both replicas deliver, and the other takes over', async () => {
    const { a, b, clock, simulator, clients } = replicas;
    const onA = wsClient(`${a.url}/graphql`, DEMO_KEYS.premium.key);
    const onB = wsClient(`${b.url}/graphql`, DEMO_KEYS.premium.key);
    clients.push(onA, onB);
    const joinedA = once(a.subscriptions.hub.activity, 'joined');
    const fromA = subscribeWs(onA, COUNTER, { id: FIXTURE_IDS.shop });
    await joinedA;
    const joinedB = once(b.subscriptions.hub.activity, 'joined');
    const fromB = subscribeWs(onB, COUNTER, { id: FIXTURE_IDS.shop });
    await joinedB;
    expect(a.subscriptions.hub.leading() + b.subscriptions.hub.leading()).toBe(1);
    const [leader, follower] = a.subscriptions.hub.leading() === 1 ? [a, b] : [b, a];
    const [leaderEvents, followerEvents] = leader === a ? [fromA, fromB] : [fromB, fromA];

    simulator.resetRequests();
    simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 3 });
    const polled = once(leader.subscriptions.hub.activity, 'polled');
    clock.advance(INTERVAL_MS);
    expect(await polled).toEqual(['counter', 'changed']);
    expect((await leaderEvents.next()).data?.counterChanged).toEqual({ changes: [{ item: 'Wasser', amountAfter: 3 }] });
    expect((await followerEvents.next()).data?.counterChanged).toEqual({
      changes: [{ item: 'Wasser', amountAfter: 3 }],
    });
    expect(simulator.countRequests({ route: COUNTER_ROUTE })).toBe(1);

    // The polling replica's last subscriber leaves: the other replica takes over at its next turn.
    const stopped = once(leader.subscriptions.hub.activity, 'stopped');
    leaderEvents.stop();
    await stopped;
    simulator.change({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 4 });
    const takenOver = once(follower.subscriptions.hub.activity, 'polled');
    clock.advance(INTERVAL_MS);
    expect(await takenOver).toEqual(['counter', 'changed']);
    expect(follower.subscriptions.hub.leading()).toBe(1);
    expect((await followerEvents.next()).data?.counterChanged).toEqual({
      changes: [{ item: 'Wasser', amountAfter: 4 }],
    });
  });
});
