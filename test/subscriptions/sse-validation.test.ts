/**
 * An operation over graphql-sse is validated once: by the pipeline, whose validated
 * documents hold the full validation (graphql-js's rules and the gateway's). graphql-sse
 * validated the document it was handed again, on every stream (about 1 ms each, fifty of
 * them when a burst of clients opened their streams in one turn); a document it was not
 * handed by the gateway still goes to graphql-js's validation.
 */
import { validate } from 'graphql';
import { useStacks } from '../support';
import { open, untilReleased } from './streams';

// graphql-js's validate, counted: the module's exports cannot be spied on, so the module is its own copy with a counted validate.
jest.mock('graphql', () => {
  const actual = jest.requireActual<typeof import('graphql')>('graphql');
  return { ...actual, validate: jest.fn(actual.validate) };
});

describe('graphql-sse operations', () => {
  const stacks = useStacks();

  it.each(['sse', 'sse-single'] as const)('are validated by the pipeline alone (%s)', async (transport) => {
    const validated = jest.mocked(validate);
    const stack = await stacks.start({ http: true });
    // Counted from here: only the operations below are validated.
    validated.mockClear();
    // The first run validates the text once (the pipeline keeps it); the second finds it validated.
    for (const expected of [1, 1]) {
      const held = open(stack, transport, 'query', 'complete');
      expect((await held.first).errors).toBeUndefined();
      await held.ended;
      expect(validated).toHaveBeenCalledTimes(expected);
    }
    await untilReleased(stack, `${transport} queries`);
  });
});
