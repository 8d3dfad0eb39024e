/**
 * `rememberDateTimeText`: `DateTimeISO` writes what it wrote before (the same text,
 * formatted once per `Date` object), and refuses an invalid `Date` every time.
 */
import { graphql, GraphQLObjectType, GraphQLScalarType, GraphQLSchema } from 'graphql';
import { GraphQLDateTimeISO } from 'graphql-scalars';
import { rememberDateTimeText } from '../../src/graph/execution/date-time-text';

function schemaAnswering(value: () => unknown): { schema: GraphQLSchema; scalar: GraphQLScalarType } {
  const scalar = new GraphQLScalarType(GraphQLDateTimeISO.toConfig());
  const query = new GraphQLObjectType({ name: 'Query', fields: { at: { type: scalar, resolve: value } } });
  return { schema: new GraphQLSchema({ query }), scalar };
}

describe('rememberDateTimeText', () => {
  it("writes the scalar's own text, formatting each Date object once", async () => {
    const date = new Date('2026-11-26T10:15:30.250Z');
    const { schema } = schemaAnswering(() => date);
    const before = await graphql({ schema, source: '{ at }' });
    rememberDateTimeText(schema);
    const toISOString = jest.spyOn(date, 'toISOString');
    const first = await graphql({ schema, source: '{ at }' });
    const second = await graphql({ schema, source: '{ at }' });
    expect(first).toEqual(before);
    expect(second).toEqual({ data: { at: '2026-11-26T10:15:30.250Z' } });
    expect(toISOString).toHaveBeenCalledTimes(1);
  });

  it('refuses an invalid Date, and what is no date, as before', async () => {
    let value: unknown = new Date(Number.NaN);
    const { schema } = rememberSchema(() => value);
    for (let i = 0; i < 2; i += 1) {
      const result = await graphql({ schema, source: '{ at }' });
      expect(result.errors?.[0]?.message).toMatch(/invalid Date/);
    }
    value = { not: 'a date' };
    expect((await graphql({ schema, source: '{ at }' })).errors?.[0]?.message).toMatch(/cannot be serialized/);
    value = '2026-11-26T10:15:30Z';
    expect(await graphql({ schema, source: '{ at }' })).toEqual({ data: { at: '2026-11-26T10:15:30.000Z' } });
  });
});

function rememberSchema(value: () => unknown): { schema: GraphQLSchema } {
  const { schema } = schemaAnswering(value);
  return { schema: rememberDateTimeText(schema) };
}
