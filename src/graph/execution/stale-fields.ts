import type { GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { getNamedType, isLeafType, isObjectType, responsePathAsArray } from 'graphql';
import type { GatewayContext } from '../../domains/gateway-context';

/**
 * Notes each field whose result was built from stale data in its operation's accounting
 * (`accounting.staleFields`, what `extensions.stale` lists), on every transport.
 *
 * Done once, when the schema is built: only a field with a resolver of its own can load
 * from the upstream, and only an object or a list can come from it, so only such fields
 * get a wrapper, which asks the session about their result once it is there. A per-field
 * hook of Apollo (`willResolveField`) would make Apollo wrap every field of the schema,
 * leaves included, and call its plugins' hooks for each field of every operation.
 *
 * @returns the same schema, its resolvers wrapped
 */
export function noteStaleFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (resolve === undefined || isLeafType(getNamedType(field.type))) continue;
      field.resolve = staleNoting(resolve);
    }
  }
  return schema;
}

function staleNoting(
  resolve: GraphQLFieldResolver<unknown, Partial<GatewayContext> | undefined>,
): GraphQLFieldResolver<unknown, Partial<GatewayContext> | undefined> {
  return (source, args, context, info) => {
    const result: unknown = resolve(source, args, context, info);
    const session = context?.session;
    if (session === undefined) return result;
    if (result instanceof Promise) {
      return result.then((value: unknown) => {
        note(context, value, info);
        return value;
      });
    }
    note(context, result, info);
    return result;
  };
}

function note(context: Partial<GatewayContext> | undefined, result: unknown, info: GraphQLResolveInfo): void {
  const session = context?.session;
  const stale = session?.staleInfo(result);
  if (session && stale) session.accounting.staleFields.push({ path: responsePathAsArray(info.path), ...stale });
}
