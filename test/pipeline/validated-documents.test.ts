/**
 * The pipeline's `parse` and `validate` phases (`ValidatedDocuments`): a query text of
 * ordinary size is parsed once, with locations. A large text is first parsed without
 * locations and checked by the gateway's own bound rules (depth, introspection cost):
 * their refusal is answered from that parse, exactly as the full validation answers it
 * (a 33 KB document of hundreds of `__schema` aliases is refused without keeping a token
 * of its text); anything else is parsed again, with locations, and validated in full.
 */
import type * as GraphQL from 'graphql';
import { parse, specifiedRules, validate } from 'graphql';
import type { GraphQLSchema, ValidationRule, GraphQLError } from 'graphql';
import { DEFAULT_CONFIG } from '../../src/config';
import { buildGatewaySchema } from '../../src/graph/schema';
import { depthLimitRule } from '../../src/graph/validation/depth.rule';
import { introspectionCostRule } from '../../src/graph/validation/introspection.rule';
import { clientError } from '../../src/pipeline/refusals';
import { LARGE_DOCUMENT_LENGTH, PARSE_OPTIONS, ValidatedDocuments } from '../../src/pipeline/validated-documents';
import type { ValidatedDocument } from '../../src/pipeline/validated-documents';

jest.mock('graphql', () => {
  const actual = jest.requireActual<typeof GraphQL>('graphql');
  return { ...actual, parse: jest.fn(actual.parse) };
});

const SELECTION = '__schema { types { name fields { name type { name kind ofType { name kind } } } } }';

/** `count` aliases of `selection` in one operation. */
function aliases(count: number, selection: string): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;
}

describe('the parse and validate phases (ValidatedDocuments)', () => {
  let schema: GraphQLSchema;
  let rules: ValidationRule[];
  const parses = jest.mocked(parse);

  beforeAll(async () => {
    schema = await buildGatewaySchema();
    rules = [
      depthLimitRule({ maxDepth: DEFAULT_CONFIG.maxDepth, maxCost: DEFAULT_CONFIG.maxUpstreamRequests }),
      introspectionCostRule(schema),
    ];
  });
  beforeEach(() => parses.mockClear());

  /** What the full validation answers (a parse with locations, every rule), as JSON. */
  function fullAnswer(query: string): unknown {
    let document;
    try {
      document = parse(query, PARSE_OPTIONS);
    } catch (error) {
      return [clientError(error as GraphQLError, 'GRAPHQL_PARSE_FAILED').toJSON()];
    }
    return validate(schema, document, [...specifiedRules, ...rules]).map((error) =>
      clientError(error, 'GRAPHQL_VALIDATION_FAILED').toJSON(),
    );
  }

  /** `prepare` on a fresh store: its answer's errors as JSON, how many parses it made, how often `validating` ran. */
  function prepared(query: string): { errors: unknown; parses: number; validating: number; result: ValidatedDocument } {
    let validating = 0;
    const result = new ValidatedDocuments(1 << 24, schema, rules).prepare(query, () => void (validating += 1));
    const made = parses.mock.calls.length;
    return {
      errors: 'errors' in result ? result.errors.map((error) => error.toJSON()) : [],
      parses: made,
      validating,
      result,
    };
  }

  it('parses a text of ordinary size once, with locations', () => {
    const query = aliases(20, SELECTION);
    expect(query.length).toBeLessThanOrEqual(LARGE_DOCUMENT_LENGTH);
    const { result, parses: made, validating } = prepared(query);
    expect(made).toBe(1);
    expect(validating).toBe(1);
    expect('document' in result && result.document.loc).toBeDefined();
  });

  it('refuses hundreds of __schema aliases from one parse without locations, as the full validation does', () => {
    const query = aliases(369, SELECTION);
    const expected = fullAnswer(query);
    parses.mockClear();
    const { errors, parses: made, validating, result } = prepared(query);
    expect(made).toBe(1);
    expect(parses.mock.calls[0]?.[1]).toMatchObject({ noLocation: true });
    expect(validating).toBe(1);
    expect('step' in result && result.step).toBe('depth');
    expect(errors).toEqual(expected);
    expect(JSON.stringify(errors)).toBe(JSON.stringify(expected));
    expect(errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_EXPENSIVE' }) }),
    ]);
  });

  it('refuses a large document too deep from one parse, as the full validation does', () => {
    const nested = `{ ${'a: factories { '.repeat(20)}id${' }'.repeat(20)} ${aliases(700, '__typename').slice(2)}`;
    expect(nested.length).toBeGreaterThan(LARGE_DOCUMENT_LENGTH);
    const expected = fullAnswer(nested);
    parses.mockClear();
    const { errors, parses: made } = prepared(nested);
    expect(made).toBe(1);
    expect(JSON.stringify(errors)).toBe(JSON.stringify(expected));
    expect(errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_EXPENSIVE', depth: 21 }) }),
    ]);
  });

  it('parses an accepted large text again, with locations, and remembers it', () => {
    const query = aliases(700, '__typename');
    expect(query.length).toBeGreaterThan(LARGE_DOCUMENT_LENGTH);
    const store = new ValidatedDocuments(1 << 24, schema, rules);
    let validating = 0;
    const result = store.prepare(query, () => void (validating += 1));
    expect(parses).toHaveBeenCalledTimes(2);
    expect(validating).toBe(1);
    expect('document' in result && result.document.loc).toBeDefined();
    parses.mockClear();
    expect('document' in store.prepare(query, () => undefined)).toBe(true);
    expect(parses).not.toHaveBeenCalled();
  });

  it.each([
    ['an unknown field (errors with locations)', aliases(1_000, 'nope')],
    ['a syntax error', `${aliases(700, '__typename')} }`],
    ['a type definition beside a refused introspection', `type T { a: Int } ${aliases(369, SELECTION)}`],
    ['too many tokens', aliases(3_500, '__typename')],
  ])('answers a large text with %s exactly as the full validation does', (_name, query) => {
    expect(query.length).toBeGreaterThan(LARGE_DOCUMENT_LENGTH);
    const expected = fullAnswer(query);
    parses.mockClear();
    const { errors } = prepared(query);
    expect(JSON.stringify(errors)).toBe(JSON.stringify(expected));
    expect((errors as unknown[]).length).toBeGreaterThan(0);
  });

  it('warms the large-text path up with a refused document, remembering nothing', () => {
    const store = new ValidatedDocuments(1 << 24, schema, rules);
    expect(store.warmUp()).toBe(3);
    // Each round a first look (no locations) that the introspection bound refuses: never the full parse.
    expect(parses).toHaveBeenCalledTimes(3);
    for (const [text, options] of parses.mock.calls) {
      expect(String(text).length).toBeGreaterThan(LARGE_DOCUMENT_LENGTH);
      expect(options).toMatchObject({ noLocation: true });
    }
  });
});
