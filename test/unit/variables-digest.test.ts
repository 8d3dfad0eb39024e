/**
 * The digest of a request's variables (src/graph/validation/variables-digest.ts): one
 * reading per variables object, large strings hashed in place (no serialized copy), shared by the operation phase's memos and the
 * response cache's key, so large variables are read once per request.
 */
import { getOperationAST, parse } from 'graphql';
import type { OperationDefinitionNode } from 'graphql';
import { responseCacheKey } from '../../src/graph/response-cache/response-cache-store';
import { OperationMemo } from '../../src/graph/validation/operation-memo';
import { variablesDigest } from '../../src/graph/validation/variables-digest';

/** Variables whose `id` counts how often it is serialized (`JSON.stringify` calls its `toJSON` once each time). */
function counted(value: string): { variables: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const id = {
    toJSON: (): string => {
      reads += 1;
      return value;
    },
  };
  return { variables: { id }, reads: () => reads };
}

const operation = getOperationAST(parse('query Memo($id: ID!) { factory(id: $id) { id } }')) as OperationDefinitionNode;

describe('variablesDigest', () => {
  it('is the same for the same data and differs for other data, the same for none and for {}', () => {
    const variables = { id: 'x', n: [1, 2], nested: { a: null, b: true } };
    expect(variablesDigest(variables)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(variablesDigest(JSON.parse(JSON.stringify(variables)) as Record<string, unknown>)).toBe(
      variablesDigest(variables),
    );
    expect(variablesDigest(undefined)).toBe(variablesDigest({}));
    const others: Array<Record<string, unknown>> = [
      { id: 'y', n: [1, 2], nested: { a: null, b: true } },
      { id: 'x', n: [1, 2], nested: { a: null, b: false } },
      { id: 'x', n: [12], nested: { a: null, b: true } },
      { id: 'x', n: ['1', 2], nested: { a: null, b: true } },
      { id: 'x', n: [1, 2], nested: { a: 'null', b: true } },
      { id: 'x', n: [[1], 2], nested: { a: null, b: true } },
      { id: 'x', n: [1, 2], nested: { b: true, a: null } },
      { 'id:': 'x', n: [1, 2], nested: { a: null, b: true } },
      { id: 'x1', n: [2], nested: { a: null, b: true } },
    ];
    const digests = new Set([variablesDigest(variables), ...others.map((other) => variablesDigest(other))]);
    expect(digests.size).toBe(others.length + 1);
  });

  it('tells apart long strings and strings with lone surrogates', () => {
    const long = 'v'.repeat(60_000);
    expect(variablesDigest({ id: `${long}a` })).not.toBe(variablesDigest({ id: `${long}b` }));
    expect(variablesDigest({ id: long, n: 1 })).toBe(variablesDigest({ id: 'v'.repeat(60_000), n: 1 }));
    expect(variablesDigest({ id: '\ud800' })).not.toBe(variablesDigest({ id: '\udc00' }));
    expect(variablesDigest({ id: '\ud800' })).not.toBe(variablesDigest({ id: '\ufffd' }));
  });

  it('never serializes a large variable into a copy of its text', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      variablesDigest({ id: `1-${'v'.repeat(60_000)}`, list: [{ n: 1 }, 'x'] });
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
  });

  it('serializes one variables object once, however often it is asked', () => {
    const { variables, reads } = counted('v'.repeat(60_000));
    const first = variablesDigest(variables);
    expect(variablesDigest(variables)).toBe(first);
    expect(reads()).toBe(1);
  });

  it('is null for variables that cannot be serialized', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(variablesDigest(cyclic)).toBeNull();
  });
});

describe('one request, large variables', () => {
  it('reads them once for three memos and the response cache key', () => {
    const { variables, reads } = counted(`1-${'v'.repeat(60_000)}`);
    const memos = [new OperationMemo<null>(), new OperationMemo<null>(), new OperationMemo<null>()];
    for (const memo of memos) memo.get({ queryHash: 'h', operation, variables }, () => null);
    const key = responseCacheKey(
      { queryHash: 'h', request: { variables } },
      { source: 'q', operationName: 'Memo', variables: { ...variables }, extra: null, sessionMode: 0 },
    );
    expect(reads()).toBe(1);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives the response cache the same key from the request’s digest as from the data alone', () => {
    const variables = { id: 'a' };
    const data = { source: 'q', operationName: 'Memo', variables: { ...variables }, extra: null, sessionMode: 0 };
    const key = responseCacheKey({ queryHash: 'h', request: { variables } }, data);
    expect(responseCacheKey({ queryHash: 'h' }, data)).toBe(key);
    // A copy that differs from the request's variables is keyed by itself.
    expect(responseCacheKey({ queryHash: 'h', request: { variables } }, { ...data, variables: { id: 'b' } })).toBe(
      responseCacheKey({ queryHash: 'h' }, { ...data, variables: { id: 'b' } }),
    );
    expect(responseCacheKey({ queryHash: 'h' }, { ...data, variables: { id: 'b' } })).not.toBe(key);
  });

  it('keeps a memo of requests with 60 KB variables within its bound in bytes', () => {
    const maxBytes = 64 * 1024;
    const memo = new OperationMemo<null>(maxBytes);
    const pad = 'v'.repeat(60_000);
    for (let i = 0; i < 2_000; i += 1)
      memo.get({ queryHash: `h${i}`, operation, variables: { id: `${i}-${pad}` } }, () => null);
    // Fixed-size entries (hashed keys): the count the bound allows, whatever the variables' size.
    expect(memo.size).toBe(maxBytes / 256);
  });
});
