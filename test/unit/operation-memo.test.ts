/**
 * The per-document memo of the cost, depth and bounds checks (src/graph/operation-memo.ts),
 * and that repeated requests still get the verdict of the first one: over HTTP, where
 * Apollo's document store hands the same parsed document to every request with the same text.
 */
import { parse } from 'graphql';
import { OperationMemo } from '../../src/graph/operation-memo';
import { codes, startHttpStack } from '../support/stack';
import type { HttpStack } from '../support/stack';

describe('OperationMemo', () => {
  it('computes once per document, operation name and variables', () => {
    const memo = new OperationMemo<number>();
    const document = parse('query A($n: Int) { factories { id } }');
    let calls = 0;
    const compute = (): number => (calls += 1);
    expect(memo.get(document, 'A', { n: 1 }, compute)).toBe(1);
    expect(memo.get(document, 'A', { n: 1 }, compute)).toBe(1);
    expect(memo.get(document, 'A', { n: 2 }, compute)).toBe(2);
    expect(memo.get(document, undefined, undefined, compute)).toBe(3);
    expect(memo.get(parse('query A($n: Int) { factories { id } }'), 'A', { n: 1 }, compute)).toBe(4);
    expect(calls).toBe(4);
  });

  it('does not remember what `keep` refuses', () => {
    const memo = new OperationMemo<string | null>();
    const document = parse('{ factories { id } }');
    let calls = 0;
    const compute = (): string => `error ${(calls += 1)}`;
    expect(memo.get(document, null, {}, compute, (result) => result === null)).toBe('error 1');
    expect(memo.get(document, null, {}, compute, (result) => result === null)).toBe('error 2');
  });

  it('keeps at most 64 results per document', () => {
    const memo = new OperationMemo<number>();
    const document = parse('query A($n: Int) { factories { id } }');
    let calls = 0;
    const compute = (): number => (calls += 1);
    for (let n = 0; n < 65; n += 1) memo.get(document, 'A', { n }, compute);
    expect(calls).toBe(65);
    memo.get(document, 'A', { n: 64 }, compute); // kept after the clear
    expect(calls).toBe(65);
    memo.get(document, 'A', { n: 0 }, compute); // forgotten by the clear
    expect(calls).toBe(66);
  });
});

describe('cost and bounds checks on repeated requests', () => {
  let stack: HttpStack;

  beforeAll(async () => {
    stack = await startHttpStack();
  });

  beforeEach(() => {
    stack.simulator.reset();
  });

  afterAll(async () => {
    await stack.close();
  });

  it('rejects an over-cost operation every time, without an upstream request', async () => {
    const query = `query Expensive { ${Array.from({ length: 12 }, (_, i) => `a${i}: factories { options { title } }`).join(' ')} }`;
    for (let i = 0; i < 3; i += 1) {
      const response = await stack.post({ query });
      expect(response.status).toBe(400);
      expect(codes(response.body)).toEqual(['QUERY_TOO_EXPENSIVE']);
    }
    expect(stack.simulator.countRequests()).toBe(0);
  });

  it('answers an out-of-bounds variable with BAD_USER_INPUT every time, also after a valid value of the same document', async () => {
    const query = 'query Page($limit: Int!) { factories { bankAccounts { transactions(limit: $limit) { totalTransactions } } } }';
    const bad = await stack.post({ query, variables: { limit: 30 } });
    expect(codes(bad.body)).toEqual(['BAD_USER_INPUT']);
    const good = await stack.post({ query, variables: { limit: 5 } });
    expect(codes(good.body)).toEqual([]);
    const again = await stack.post({ query, variables: { limit: 30 } });
    expect(codes(again.body)).toEqual(['BAD_USER_INPUT']);
    expect(again.body.errors?.[0]?.message).toBe(bad.body.errors?.[0]?.message);
    expect(again.status).toBe(bad.status);
  });
});
