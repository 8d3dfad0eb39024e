/**
 * A POST body over `LARGE_BODY_CHARS` is checked (parse, validate, operation phase) in a
 * turn of sliced work and run on Apollo in another, so that several connections' large
 * requests are not all prepared and run in the turn their bodies arrived in; an ordinary
 * body is handled in its own turn, as before. The answers are the same either way.
 */
import * as slices from '../../src/graph/execution/turn-slices';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { LARGE_BODY_CHARS } from '../../src/web/graphql-request';
import { useStack } from '../support';

const QUERY = 'query Shop($id: ID!) { factory(id: $id) { id } }';

describe('requests with large bodies', () => {
  const stack = useStack({ http: true });
  afterEach(() => jest.restoreAllMocks());

  /** POSTs the query followed by a comment of `padding` characters; the answer's status and JSON. */
  async function ask(padding: number): Promise<{ status: number; body: unknown }> {
    const response = await fetch(stack.endpoint ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      body: JSON.stringify({ query: `${QUERY} # ${'n'.repeat(padding)}`, variables: { id: FIXTURE_IDS.shop } }),
    });
    return { status: response.status, body: await response.json() };
  }

  it('waits for a turn of sliced work before the checks and again before the run', async () => {
    const turns = jest.spyOn(slices, 'heavySlice');
    const small = await ask(10);
    expect(turns).not.toHaveBeenCalled();
    const large = await ask(LARGE_BODY_CHARS);
    expect(turns).toHaveBeenCalledTimes(2);
    expect(large.status).toBe(200);
    expect(large.body).toMatchObject({ data: { factory: { id: FIXTURE_IDS.shop } } });
    expect((large.body as { data: unknown }).data).toEqual((small.body as { data: unknown }).data);
  });

  it('answers a refused large request after one turn, never running it', async () => {
    const turns = jest.spyOn(slices, 'heavySlice');
    const response = await fetch(stack.endpoint ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ nope ${' '.repeat(LARGE_BODY_CHARS)}}` }),
    });
    expect(response.status).toBe(400);
    expect(turns).toHaveBeenCalledTimes(1);
  });
});
