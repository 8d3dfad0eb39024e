/**
 * A kept-open connection keeps its credential while its `Authorization` header stays the
 * same: the key is hashed once per connection, not per request, and a connection that
 * switches keys gets the new key's data, never the old one's.
 */
import crypto from 'node:crypto';
import { Agent, fetch } from 'undici';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';

const QUERY = `query Shop($id: ID!) { factory(id: $id) { id name } }`;

describe('the credential of a kept-open connection', () => {
  const stack = useStack({ http: true });
  let agent: Agent;

  beforeEach(() => {
    // One connection, kept open: every request below shares it.
    agent = new Agent({ connections: 1, pipelining: 1 });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await agent.close();
  });

  async function ask(key: string): Promise<unknown> {
    const response = await fetch(stack.endpoint ?? '', {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: QUERY, variables: { id: FIXTURE_IDS.shop } }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: unknown }).data;
  }

  it('hashes the key once per connection, and a new key on it gets its own data', async () => {
    const hmacs = jest.spyOn(crypto, 'createHmac');
    const premium = await ask(DEMO_KEYS.premium.key);
    expect(premium).toEqual({ factory: { id: FIXTURE_IDS.shop, name: expect.any(String) as string } });
    const hashedOnce = hmacs.mock.calls.length;
    expect(hashedOnce).toBeGreaterThan(0);

    expect(await ask(DEMO_KEYS.premium.key)).toEqual(premium);
    expect(hmacs.mock.calls.length).toBe(hashedOnce);

    // The other key's character does not own the shop, on the same connection too.
    expect(await ask(DEMO_KEYS.other.key)).toEqual({ factory: null });
    expect(hmacs.mock.calls.length).toBeGreaterThan(hashedOnce);
    expect(await ask(DEMO_KEYS.premium.key)).toEqual(premium);
    expect(stack.simulator.requests.map((request) => `${request.keyLabel} ${request.route}`)).toEqual([
      'premium GET /factory/list/',
      'other GET /factory/list/',
    ]);
  });
});
