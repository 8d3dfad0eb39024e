import type { GraphQLField, GraphQLFieldResolver, GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { getNamedType, getNullableType, isLeafType, isObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { ResolverClass } from '../../domains';

type Resolve = GraphQLFieldResolver<unknown, unknown>;
/** How one parameter of a resolver method is read from graphql's resolver arguments. */
type ParamReader = (
  root: unknown,
  args: Record<string, unknown>,
  context: unknown,
  info: GraphQLResolveInfo,
) => unknown;

/** One query or field resolver method as TypeGraphQL's metadata describes it. */
interface HandlerMetadata {
  readonly target: object;
  readonly methodName: string;
  readonly schemaName: string;
  readonly params?: ReadonlyArray<{
    readonly kind: string;
    readonly index: number;
    readonly propertyName?: string;
    readonly name?: string;
    readonly getType?: unknown;
  }>;
  readonly middlewares?: readonly unknown[];
  readonly roles?: readonly unknown[];
}

/**
 * Calls the resolver methods of `resolvers` directly: TypeGraphQL's generated resolver
 * does, on every call, what can be done once when the schema is built (it sorts the
 * method's parameters, looks the instance up, runs an empty middleware chain, and turns
 * `@Args` into a class instance, looking its metadata up by a linear search). Here each
 * query and field resolver gets a function that reads its parameters in the order
 * computed once and calls the method on one instance of its class.
 *
 * Only what that covers is replaced: queries and field resolvers of resolver classes
 * (not mutations, subscriptions or fields resolved by their own type), without
 * middlewares or roles, whose parameters are `@Root()` (passed as it is: TypeGraphQL
 * would copy a mapped object into an instance of the type's class first, and these
 * resolvers only read its properties), `@Ctx()`,
 * `@Info()`, and `@Arg`/`@Args` of a field whose arguments are all scalars or enums
 * (so a plain argument object reads the same as TypeGraphQL's instance). Every other
 * field keeps TypeGraphQL's resolver.
 *
 * @param resolvers - the resolver classes the schema was built from
 * @returns the same schema, its resolvers replaced
 */
export function leanResolvers(schema: GraphQLSchema, resolvers: readonly ResolverClass[]): GraphQLSchema {
  const storage = getMetadataStorage();
  const ours = new Set<object>(resolvers);
  const instances = new Map<object, Record<string, unknown>>();
  const query = schema.getQueryType();
  const replace = (type: GraphQLObjectType | null | undefined, handler: HandlerMetadata): void => {
    if (!type || !ours.has(handler.target)) return;
    const field = type.getFields()[handler.schemaName];
    if (!field?.resolve) return;
    const resolve = directResolver(field, handler, instances);
    if (resolve) field.resolve = resolve;
  };
  for (const handler of storage.queries) replace(query, handler);
  for (const handler of storage.fieldResolvers) {
    if (handler.kind !== 'external' || !handler.getObjectType) continue;
    const objectClass = handler.getObjectType();
    const typeName = storage.objectTypes.find((objectType) => objectType.target === objectClass)?.name;
    const type = typeName === undefined ? undefined : schema.getType(typeName);
    replace(isObjectType(type) ? type : undefined, handler);
  }
  return schema;
}

function directResolver(
  field: GraphQLField<unknown, unknown>,
  handler: HandlerMetadata,
  instances: Map<object, Record<string, unknown>>,
): Resolve | undefined {
  if ((handler.middlewares?.length ?? 0) > 0 || (handler.roles?.length ?? 0) > 0) return undefined;
  const scalarArgs = field.args.every((arg) => isLeafType(getNamedType(arg.type)));
  const params = [...(handler.params ?? [])].sort((a, b) => a.index - b.index);
  const readers: ParamReader[] = [];
  for (const param of params) {
    const reader = readerOf(param, scalarArgs);
    if (!reader) return undefined;
    readers.push(reader);
  }
  let instance = instances.get(handler.target);
  if (!instance) {
    instance = new (handler.target as new () => Record<string, unknown>)();
    instances.set(handler.target, instance);
  }
  const method = instance[handler.methodName];
  if (typeof method !== 'function') return undefined;
  const target = instance;
  const call = method as (...values: unknown[]) => unknown;
  // TypeGraphQL hands arguments over after a promise (its argument validation is
  // asynchronous, even when off), so a method with arguments runs a few microtasks after
  // graphql called its resolver. The same wait here keeps the order in which a view's
  // upstream reads are queued, which the rate-limited page's floor depends on.
  const deferred = params.some((param) => param.kind === 'args' || param.kind === 'arg');
  const direct = deferred ? undefined : directCall(params, call, target);
  if (direct) return direct;
  return (root, args, context, info) => {
    const values = new Array<unknown>(readers.length);
    for (let i = 0; i < readers.length; i += 1) values[i] = readers[i]?.(root, args, context, info);
    if (deferred) return Promise.all(values).then((ready) => call.apply(target, ready));
    return call.apply(target, values);
  };
}

/**
 * The resolver of the common parameter lists (`@Ctx()`; `@Root(), @Ctx()`; `@Root(), @Ctx(),
 * @Info()`, each whole) as one direct call: no array of values and no reader called per
 * parameter, for each of the resolver calls of an operation. Undefined for any other list.
 */
function directCall(
  params: NonNullable<HandlerMetadata['params']>,
  call: (...values: unknown[]) => unknown,
  target: object,
): Resolve | undefined {
  if (params.some((param) => param.propertyName !== undefined)) return undefined;
  switch (params.map((param) => param.kind).join(',')) {
    case 'context':
      return (_root, _args, context) => call.call(target, context);
    case 'root,context':
      return (root, _args, context) => call.call(target, root, context);
    case 'root,context,info':
      return (root, _args, context, info) => call.call(target, root, context, info);
    default:
      return undefined;
  }
}

function readerOf(param: NonNullable<HandlerMetadata['params']>[number], scalarArgs: boolean): ParamReader | undefined {
  switch (param.kind) {
    case 'root':
      // TypeGraphQL would copy a root that is not an instance of its class into one: the
      // resolvers here only read its properties, so the root itself does.
      return param.propertyName === undefined
        ? (root) => root
        : (root) => (root as Record<string, unknown> | null | undefined)?.[param.propertyName ?? ''];
    case 'context':
      return param.propertyName === undefined
        ? (_root, _args, context) => context
        : (_root, _args, context) => (context as Record<string, unknown>)[param.propertyName ?? ''];
    case 'info':
      return (_root, _args, _context, info) => info;
    case 'args':
      return scalarArgs ? (_root, args) => args : undefined;
    case 'arg': {
      const name = param.name;
      return scalarArgs && name !== undefined ? (_root, args) => args[name] : undefined;
    }
    default:
      return undefined;
  }
}

/** A field as TypeGraphQL's metadata describes it (what {@link directPropertyReads} reads of it). */
interface FieldMetadata {
  readonly target: object;
  readonly name: string;
  readonly schemaName: string;
  readonly middlewares?: readonly unknown[];
  readonly roles?: readonly unknown[];
}

/** A resolver reading `root[name]`, as TypeGraphQL's resolver of a plain `@Field` property reads it, without its per-call middleware chain. */
function propertyReader(name: string): Resolve {
  return (root) => (root as Record<string, unknown>)[name];
}

/**
 * Reads the fields TypeGraphQL resolves by reading their object's property of the same
 * name without TypeGraphQL's resolver: it reads the property through an empty
 * middleware chain, an object allocated per call, for every field of an object type.
 * A scalar or enum field gets no resolver at all, so graphql-jit reads the property in
 * its compiled code (it called a resolver, built its info and two callbacks for each of
 * the 364 leaf values of a dashboard); an object or list field gets a plain reader of
 * the property (the stale-data notes and large-list slices wrap fields with a resolver).
 *
 * Only such a resolver is replaced: a field declared with `@Field` on a property of the
 * same name (no `name` of its own), with no resolver method or getter, no middleware, no
 * roles and no arguments. The value read is the same property: the answer is the same.
 * Call it on the schema as `buildSchema` gives it, before any resolver is wrapped.
 *
 * @returns the same schema, those fields' resolvers replaced
 */
export function directPropertyReads(schema: GraphQLSchema): GraphQLSchema {
  const storage = getMetadataStorage();
  const withMethod = (field: FieldMetadata): boolean =>
    storage.fieldResolvers.some(
      (handler) => handler.methodName === field.name && handler.getObjectType?.() === field.target,
    );
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const interfaces = storage.interfaceTypes.filter((it) => objectType.interfaceClasses?.includes(it.target));
    const declared: readonly FieldMetadata[] = [
      ...interfaces.flatMap((it) => it.fields ?? []),
      ...(objectType.fields ?? []),
    ];
    const fields = type.getFields();
    for (const metadata of declared) {
      const field = fields[metadata.schemaName];
      if (
        !field?.resolve ||
        metadata.name !== metadata.schemaName ||
        field.args.length > 0 ||
        (metadata.middlewares?.length ?? 0) > 0 ||
        (metadata.roles?.length ?? 0) > 0 ||
        withMethod(metadata)
      )
        continue;
      field.resolve = isLeafType(getNullableType(field.type)) ? undefined : propertyReader(metadata.name);
    }
  }
  return schema;
}
