/**
 * A refusal the gateway answers on purpose (FORBIDDEN, BAD_USER_INPUT, …) is built without
 * stack frames, also once graphql-js has located it in a result; internal errors and upstream
 * failures keep theirs, and so does every error built after one.
 */
import { buildSchema, execute, GraphQLError, parse } from 'graphql';
import { errorOver, GatewayError, UpstreamError } from '../../src/errors/gateway-error';
import { ENDPOINTS } from '../../src/upstream/endpoints';

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

  describe('errorOver (an error located over one that has its stack)', () => {
    /** Runs `build` with Error.prepareStackTrace counting the frames V8 formats for each error built meanwhile. */
    function formattedFrames(build: () => unknown): number[] {
      const counts: number[] = [];
      const before = Error.prepareStackTrace;
      Error.prepareStackTrace = (error, frames) => {
        counts.push(frames.length);
        return `${String(error)}${frames.map((frame) => `\n    at ${String(frame)}`).join('')}`;
      };
      try {
        build();
      } finally {
        Error.prepareStackTrace = before;
      }
      return counts;
    }

    it("captures and formats no frames of its own, and carries the original's stack", () => {
      const original = new UpstreamError('RATE_LIMITED', ENDPOINTS.factoryOption, {
        status: null,
        endpoint: ENDPOINTS.factoryOption.route,
        message: 'budget spent',
      });
      const originalStack = original.stack;
      let located: GraphQLError | undefined;
      const frames = formattedFrames(() => {
        located = errorOver('budget spent', { path: ['factory', 'options', 3], originalError: original });
      });
      // graphql-js's own constructor captured up to Error.stackTraceLimit frames here and formatted them.
      expect(frames.filter((count) => count > 0)).toEqual([]);
      expect(located?.stack).toBe(originalStack);
      expect(located?.path).toEqual(['factory', 'options', 3]);
      expect(located?.originalError).toBe(original);
      expect(located?.extensions.code).toBe('RATE_LIMITED');
      expect(new Error('after').stack).toMatch(FRAME);
    });

    it('is new GraphQLError as it is without an original', () => {
      const located = errorOver('no original', { path: ['factory'] });
      expect(located).toBeInstanceOf(GraphQLError);
      expect(located.stack).toMatch(FRAME);
      expect(located.toJSON()).toEqual(new GraphQLError('no original', { path: ['factory'] }).toJSON());
    });

    it('answers as new GraphQLError does over the same original', () => {
      const original = new Error('upstream failed');
      const options = {
        path: ['buildings', 0, 'rooms', 2, 'tenant'],
        originalError: original,
        extensions: { slot: 2 },
      };
      const located = errorOver('upstream failed', options);
      const plain = new GraphQLError('upstream failed', options);
      expect(located.toJSON()).toEqual(plain.toJSON());
      expect(located.stack).toBe(plain.stack);
    });
  });
});
