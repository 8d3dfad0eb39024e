/**
 * Every stream ends, as a property: random mixes of queries, mutations, subscriptions and
 * live queries over graphql-ws and graphql-sse (distinct connections and a reservation
 * token), open at once, each left in a random way (complete, dispose, TCP reset, SIGKILL of
 * the process holding it, a WebSocket that stops answering pings) at a random moment
 * (before the first result, after it, while the next is being made). After each mix the
 * gateway holds nothing: statev_subscriptions_active and the key's count at 0, no live
 * query, watch, store entry or poller; after all of them the key opens
 * SUBSCRIPTIONS_MAX_PER_KEY subscriptions again. A failure prints fast-check's seed and
 * path; the seed is fixed so CI runs the same mixes.
 */
import { once } from 'node:events';
import fc from 'fast-check';
import { ManualClock, startStack } from '../support';
import { admitsTheLimit, KINDS, MOMENTS, openAndLeave, openIdleWs, TRANSPORTS, untilReleased, WAYS } from './streams';
import type { Kind, Moment, StreamStack, Transport, Way } from './streams';

jest.setTimeout(120_000);

/** One stream of a mix: `idle` is a WebSocket peer that stops answering pings (graphql-ws only). */
interface Planned {
  transport: Transport;
  kind: Kind;
  way: Way | 'idle';
  moment: Moment;
}

const planned: fc.Arbitrary<Planned> = fc
  .record({
    transport: fc.constantFrom(...TRANSPORTS),
    kind: fc.constantFrom(...KINDS),
    way: fc.constantFrom<Way | 'idle'>(...WAYS, 'idle'),
    moment: fc.constantFrom(...MOMENTS),
  })
  // An SSE stream has no pings to stop answering.
  .map((plan) => (plan.way === 'idle' && plan.transport !== 'ws' ? { ...plan, way: 'reset' as const } : plan));

describe('random mixes of streams, left in random ways', () => {
  let streams: StreamStack;

  beforeAll(async () => {
    const clock = new ManualClock();
    const stack = await startStack({
      http: true,
      // A keep-alive short enough that an idle peer is dropped within the run, long enough for a busy test process to answer pings.
      config: { liveQueryThrottleMs: 0, subscriptionKeepAliveMs: 500 },
      gateway: { now: clock.now, pollClock: clock },
    });
    streams = { stack, clock };
  });

  afterAll(async () => {
    await streams.stack.close();
  });

  it('release everything they held', async () => {
    let step = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(planned, { minLength: 1, maxLength: 6 }), async (mix) => {
        await Promise.all(
          mix.map(async ({ transport, kind, way, moment }) => {
            step += 1;
            if (way !== 'idle') return openAndLeave(streams, transport, kind, way, moment, step);
            const idle = openIdleWs(streams.stack, kind);
            await once(idle.ws, 'close');
          }),
        );
        await untilReleased(streams.stack, JSON.stringify(mix));
      }),
      { numRuns: 30, seed: 20261125, endOnFailure: true },
    );
    await admitsTheLimit(streams.stack);
  });
});
