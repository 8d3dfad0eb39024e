/**
 * Subscription churn over one connection is counted as what the client holds: a
 * subscription the client completed frees its place at once, also while its start (the
 * first poll) is still under way, and one admitted in the same burst counts only until it
 * starts or is completed. With SUBSCRIPTIONS_MAX_PER_CONNECTION=1, subscribe and complete
 * thirty times in a row: nothing is refused, and nothing is held afterwards.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, useStack } from '../support';
import { untilReleased } from './streams';

const INVENTORY = {
  query: 'subscription($id: ID!) { inventoryChanged(factoryId: $id) { factoryId } }',
  variables: { id: FIXTURE_IDS.shop },
};

describe('subscription churn over one WebSocket', () => {
  const stack = useStack(() => {
    const clock = new ManualClock();
    return { http: true, config: { subscriptionsMaxPerConnection: 1 }, gateway: { now: clock.now, pollClock: clock } };
  });

  it('frees the place of each completed subscription at once: thirty subscribe/complete pairs, none refused', async () => {
    const ws = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const messages: Array<{ id?: string; type: string; payload?: unknown }> = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as { type: string }));
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${DEMO_KEYS.premium.key}` } }));
    await once(ws, 'message');
    for (let i = 0; i < 30; i += 1) {
      ws.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: INVENTORY }));
      ws.send(JSON.stringify({ id: `s${i}`, type: 'complete' }));
    }
    // Answered after every subscribe before it was admitted or refused (messages are handled in order).
    ws.send(JSON.stringify({ id: 'last', type: 'subscribe', payload: { query: '{ __typename }' } }));
    while (!messages.some((message) => message.id === 'last' && message.type === 'complete')) await once(ws, 'message');
    const refused = messages.filter(
      (message) => message.type === 'next' && JSON.stringify(message.payload).includes('RATE_LIMITED'),
    );
    expect(refused).toEqual([]);
    ws.close();
    await once(ws, 'close');
    await untilReleased(stack, 'churned subscriptions');
  });
});
