/**
 * Scalar and enum fields read from their object's property (src/graph/execution/lean-resolvers.ts,
 * `directPropertyReads`): TypeGraphQL's resolver that only reads the property is dropped,
 * every other resolver stays, and the answers are the same, with graphql-js and once
 * compiled by graphql-jit.
 */
import { execute, getNamedType, isLeafType, isListType, getNullableType, parse } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { Arg, buildSchema, Field, FieldResolver, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { buildGatewaySchema } from '../../src/graph/schema';
import { directPropertyReads } from '../../src/graph/execution/lean-resolvers';

@ObjectType()
class Shelf {
  @Field()
  label!: string;

  @Field({ name: 'shown' })
  hidden!: string;

  @Field(() => Int, { nullable: true })
  count!: number | null;

  @Field(() => [String])
  tags!: string[];

  @Field(() => Shelf, { nullable: true })
  next!: Shelf | null;

  @Field()
  get upper(): string {
    return this.label.toUpperCase();
  }
}

@Resolver(() => Shelf)
class ShelfResolver {
  @Query(() => [Shelf])
  shelves(): Shelf[] {
    const last = Object.assign(new Shelf(), { label: 'b', hidden: 'y', count: null, tags: [], next: null });
    return [Object.assign(new Shelf(), { label: 'a', hidden: 'x', count: 2, tags: ['t'], next: last }), last];
  }

  @FieldResolver(() => String)
  label(@Root() shelf: Shelf): string {
    return `label ${shelf.label}`;
  }

  @FieldResolver(() => Int)
  doubled(@Root() shelf: Shelf, @Arg('times', () => Int) times: number): number {
    return (shelf.count ?? 0) * times;
  }
}

const QUERY = parse('{ shelves { label shown count tags upper doubled(times: 3) next { label shown count upper } } }');

async function answer(schema: GraphQLSchema): Promise<unknown> {
  const compiled = compileQuery(schema, QUERY);
  if (!isCompiledQuery(compiled)) throw new Error('does not compile');
  const jit = await compiled.query(undefined, {}, {});
  const js = await execute({ schema, document: QUERY });
  expect(JSON.stringify(jit)).toBe(JSON.stringify(js));
  return js;
}

describe('direct property reads', () => {
  it('drops only the resolvers that read a scalar property of the same name; the answers stay', async () => {
    const before = await answer(await buildSchema({ resolvers: [ShelfResolver], validate: false }));
    const schema = directPropertyReads(await buildSchema({ resolvers: [ShelfResolver], validate: false }));
    const fields = schema.getType('Shelf') as unknown as { getFields(): Record<string, { resolve?: unknown }> };
    const resolved = Object.entries(fields.getFields())
      .filter(([, field]) => field.resolve !== undefined)
      .map(([name]) => name)
      .sort();
    // label, doubled: resolver methods; shown: a property of another name; tags: a list; next: an
    // object; upper: a getter (TypeGraphQL resolves it as a method of the type). Only count is read directly.
    expect(resolved).toEqual(['doubled', 'label', 'next', 'shown', 'tags', 'upper']);
    expect(await answer(schema)).toEqual(before);
    expect(before).toMatchObject({ data: { shelves: [{ label: 'label a', shown: 'x', upper: 'A', doubled: 6 }, {}] } });
  });

  it("leaves the gateway schema's resolvers on objects, lists and field resolvers", async () => {
    const schema = await buildGatewaySchema();
    const factory = schema.getType('Factory') as unknown as {
      getFields(): Record<string, { resolve?: unknown; type: Parameters<typeof getNamedType>[0] }>;
    };
    const fields = factory.getFields();
    expect(fields.name?.resolve).toBeUndefined();
    expect(fields.inventory?.resolve).toBeDefined();
    expect(fields.bankAccounts?.resolve).toBeDefined();
    for (const field of Object.values(fields)) {
      const nullable = getNullableType(field.type);
      if (!isLeafType(getNamedType(field.type)) || isListType(nullable)) expect(field.resolve).toBeDefined();
    }
  });
});
