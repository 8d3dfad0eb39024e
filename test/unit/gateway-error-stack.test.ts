/**
 * A refusal the gateway answers on purpose (FORBIDDEN, BAD_USER_INPUT, …) is built without
 * stack frames, also once graphql-js has located it in a result; internal errors and upstream
 * failures keep theirs, and so does every error built after one.
 */
import { buildSchema, execute, parse } from 'graphql';
import { GatewayError } from '../../src/errors/gateway-error';

const FRAME = /\n\s+at /;

describe('GatewayError stacks', () => {
  it('captures no stack frames for a refusal', () => {
    for (const code of ['FORBIDDEN', 'BAD_USER_INPUT', 'UNAUTHENTICATED', 'QUERY_TOO_EXPENSIVE'] as const) {
      const error = new GatewayError(code, 'This access token may not read company "1".');
      expect(error.stack ?? '').not.toMatch(FRAME);
      expect(error.message).toBe('This access token may not read company "1".');
      expect(error.extensions.code).toBe(code);
    }
  });

  it('keeps the stack of an internal error and of an upstream failure, and restores the limit', () => {
    const limit = Error.stackTraceLimit;
    new GatewayError('FORBIDDEN', 'refused');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new GatewayError('INTERNAL_SERVER_ERROR', 'broken').stack).toMatch(FRAME);
    expect(new GatewayError('UPSTREAM_ERROR', 'failed').stack).toMatch(FRAME);
    expect(new Error('after').stack).toMatch(FRAME);
  });

  it('has no frames once a resolver threw it and graphql-js located it', async () => {
    const schema = buildSchema('type Query { factory(id: ID!): String }');
    const result = await execute({
      schema,
      document: parse('query ($id: ID!) { factory(id: $id) }'),
      variableValues: { id: '1' },
      rootValue: {
        factory: () => {
          throw new GatewayError('FORBIDDEN', 'This access token may not read company "1".');
        },
      },
    });
    const [error] = result.errors ?? [];
    expect(error?.extensions.code).toBe('FORBIDDEN');
    expect(error?.path).toEqual(['factory']);
    expect(error?.stack ?? '').not.toMatch(FRAME);
  });
});
