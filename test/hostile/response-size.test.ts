/**
 * A GraphQL response the gateway builds from many
 * upstream answers is bounded by MAX_RESPONSE_BYTES where the HTTP response is written.
 */
import { startStack } from '../support';
import type { Stack } from '../support';

const BIG =
  '{ factories { id name inventory { items { item amount } } counter { items { item price } } sellOffers { item pricePerUnit } } }';

describe('MAX_RESPONSE_BYTES', () => {
  let stack: Stack;
  afterEach(async () => {
    await stack.close();
  });

  it('replaces a response over the limit by one QUERY_TOO_EXPENSIVE error, and leaves smaller ones alone', async () => {
    stack = await startStack({ http: true, config: { maxResponseBytes: 1024 } });
    const big = await stack.post({ query: BIG });
    expect(big.status).toBe(200);
    expect(Buffer.byteLength(big.text)).toBeLessThan(1024);
    expect(big.body.data).toBeNull();
    expect(big.body.errors?.map((error) => error.extensions?.code)).toEqual(['QUERY_TOO_EXPENSIVE']);
    const extensions = big.body.errors?.[0]?.extensions as { responseBytes: number; maxResponseBytes: number };
    expect(extensions.maxResponseBytes).toBe(1024);
    expect(extensions.responseBytes).toBeGreaterThan(1024);

    const small = await stack.post({ query: '{ factories { id } }' });
    expect(small.body.errors).toBeUndefined();
    expect(Array.isArray(small.body.data?.factories)).toBe(true);
  });
});
