/**
 * The live-query store copies the schema (adding its resource collectors) on a schema's
 * first live query. The gateway makes that copy at startup, so the first live query of a
 * process does not make it in its own turn beside every stream opening with it. Counted by
 * `GraphQLSchema.prototype.toConfig`, which the copy calls; the simulator over real HTTP, a
 * real graphql-ws client, no sleeps.
 */
import { GraphQLSchema } from 'graphql';
import type { Client as WsClient } from 'graphql-ws';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';
import { collect, wsClient } from './clients';

describe('the first live query of a gateway', () => {
  let stack: HttpStack;
  let ws: WsClient;

  beforeEach(async () => {
    stack = await startStack({ http: true, config: { liveQueryThrottleMs: 0 } });
    ws = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await ws.dispose();
    await stack.close();
  });

  it('makes no copy of the schema: it was made at startup', async () => {
    const copies = jest.spyOn(GraphQLSchema.prototype, 'toConfig');
    const live = collect((sink) =>
      ws.subscribe(
        { query: 'query($id: ID!) @live { factory(id: $id) { name } }', variables: { id: FIXTURE_IDS.shop } },
        sink,
      ),
    );
    const first = await live.next();
    expect(first.errors).toBeUndefined();
    expect(first.data).toEqual({ factory: { name: expect.any(String) } });
    expect(copies).not.toHaveBeenCalled();
  });
});
