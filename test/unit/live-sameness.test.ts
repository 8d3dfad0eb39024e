/**
 * The text that tells two live query results apart (`sameness`): their data and errors as
 * JSON, computed once per result object and invisible to everything else.
 */
import type { ExecutionResult } from 'graphql';
import { GraphQLError } from 'graphql';
import { sameness } from '../../src/subscriptions/live-shared';

describe('sameness', () => {
  it('is the JSON of data and errors, not of extensions', () => {
    const result: ExecutionResult = {
      data: { a: 1 },
      errors: [new GraphQLError('x')],
      extensions: { upstream: { requests: 1 } },
    };
    expect(sameness(result)).toBe(JSON.stringify({ data: { a: 1 }, errors: result.errors }));
    expect(sameness({ data: { a: 1 }, errors: result.errors, extensions: { upstream: { requests: 2 } } })).toBe(
      sameness(result),
    );
  });

  it('is computed once per result object, and leaves no trace in its keys, copies or JSON', () => {
    const result: ExecutionResult = { data: { a: [1, 2] } };
    const first = sameness(result);
    const stringify = jest.spyOn(JSON, 'stringify');
    expect(sameness(result)).toBe(first);
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(Object.keys(result)).toEqual(['data']);
    expect(Object.getOwnPropertySymbols({ ...result })).toEqual([]);
    expect(JSON.stringify(result)).toBe('{"data":{"a":[1,2]}}');
    expect(result).toEqual({ data: { a: [1, 2] } });
  });
});
