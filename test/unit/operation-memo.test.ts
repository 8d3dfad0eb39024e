/**
 * The byte-bounded memo of the cost and bounds checks (src/graph/validation/operation-memo.ts),
 * and that repeated requests still get the verdict of the first one: over HTTP, where
 * Apollo's document store hands the same parsed document to every request with the same text.
 */
import { getOperationAST, parse } from 'graphql';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { declaredVariables, OperationMemo } from '../../src/graph/validation/operation-memo';
import { codes, useStack } from '../support';

/** The operation of a document with one operation. */
function only(document: DocumentNode): OperationDefinitionNode {
  const operation = getOperationAST(document);
  if (!operation) throw new Error('no operation');
  return operation;
}

describe('OperationMemo', () => {
  const document = parse('query A($n: Int) { factories { id } }');
  const operation = only(document);

  it('computes once per query hash, operation and declared variables', () => {
    const memo = new OperationMemo<number>();
    let calls = 0;
    const compute = (): number => (calls += 1);
    expect(memo.get({ queryHash: 'h1', operation, variables: { n: 1 } }, compute)).toBe(1);
    expect(memo.get({ queryHash: 'h1', operation, variables: { n: 1 } }, compute)).toBe(1);
    expect(memo.get({ queryHash: 'h1', operation, variables: { n: 2 } }, compute)).toBe(2);
    expect(memo.get({ queryHash: 'h1', operation, variables: undefined }, compute)).toBe(3);
    expect(memo.get({ queryHash: 'h2', operation, variables: { n: 1 } }, compute)).toBe(4);
    expect(calls).toBe(4);
  });

  it('keeps requests apart when they alternate on one operation node (its last key is reused only for the same request)', () => {
    const memo = new OperationMemo<number>();
    let calls = 0;
    const compute = (): number => (calls += 1);
    const asked = [
      { queryHash: 'h1', variables: { n: 1 } },
      { queryHash: 'h1', variables: { n: 2 } },
      { queryHash: 'h1', variables: { n: 1 } },
      { queryHash: 'h2', variables: { n: 2 } },
      { queryHash: 'h1', variables: { n: 2 } },
    ];
    expect(asked.map((request) => memo.get({ ...request, operation }, compute))).toEqual([1, 2, 1, 3, 2]);
    expect(calls).toBe(3);
  });

  it('ignores variables the operation does not declare', () => {
    const memo = new OperationMemo<number>();
    let calls = 0;
    const compute = (): number => (calls += 1);
    memo.get({ queryHash: 'h', operation, variables: { n: 1 } }, compute);
    memo.get({ queryHash: 'h', operation, variables: { n: 1, junk: 'x'.repeat(100_000) } }, compute);
    expect(calls).toBe(1);
    expect(declaredVariables(operation, { n: 1, junk: 2 })).toEqual({ n: 1 });
  });

  it('does not remember what `keep` refuses', () => {
    const memo = new OperationMemo<string | null>();
    let calls = 0;
    const compute = (): string => `error ${(calls += 1)}`;
    expect(memo.get({ queryHash: 'h', operation, variables: {} }, compute, (result) => result === null)).toBe(
      'error 1',
    );
    expect(memo.get({ queryHash: 'h', operation, variables: {} }, compute, (result) => result === null)).toBe(
      'error 2',
    );
  });

  it('shares one bound between the memos scoped from it, their keys apart', () => {
    const memo = new OperationMemo<never>(64 * 1024);
    const bounds = memo.scoped<string>('bounds');
    const cost = memo.scoped<string>('cost');
    const request = { queryHash: 'h', operation, variables: { n: 1 } };
    expect(bounds.get(request, () => 'bounds')).toBe('bounds');
    expect(cost.get(request, () => 'cost')).toBe('cost');
    expect(bounds.get(request, () => 'again')).toBe('bounds');
    expect(memo.size).toBe(2);
    for (let i = 0; i < 100_000; i += 1) {
      bounds.get({ queryHash: `h${i}`, operation, variables: { n: i } }, () => 'b');
      cost.get({ queryHash: `h${i}`, operation, variables: { n: i } }, () => 'c');
    }
    // One bound of 64 KiB for both (256 entries), not one each.
    expect(memo.size).toBe(256);
    expect(cost.size).toBe(256);
  });

  it('is bounded in bytes: 100,000 distinct requests keep only what fits', () => {
    const memo = new OperationMemo<number>(64 * 1024);
    for (let i = 0; i < 100_000; i += 1) memo.get({ queryHash: `h${i}`, operation, variables: { n: i } }, () => i);
    expect(memo.size).toBeLessThanOrEqual(256);
    expect(memo.size).toBeGreaterThan(0);
  });
});

describe('cost and bounds checks on repeated requests', () => {
  const stack = useStack({ http: true }, { resetSimulator: true });

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
    const query =
      'query Page($limit: Int!) { factories { bankAccounts { transactions(limit: $limit) { totalTransactions } } } }';
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
