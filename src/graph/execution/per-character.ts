/**
 * Where an operation of an access token over several characters fans out: the one place
 * that decides which key's context a field runs with, so that the domain resolvers only
 * ever see one key's context (see `src/domains/shared/owners.ts` and docs/access-tokens.md).
 */
import type { GraphQLField, GraphQLFieldResolver, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { isObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { ResolverClass } from '../../domains';
import type { GatewayContext, SubscriptionContext } from '../../domains/gateway-context';
import type { FeedMessage } from '../../domains/feeds/feed';
import { asCompanyOwner, firstAcrossKeys, mergeAcrossKeys, owned } from '../../domains/shared/owners';
import { subscribeAcrossKeys, subscribeAsOwner } from '../../domains/shared/owner-subscriptions';
import { upstreamCostOf } from '../../field-rules/cost';
import type { SubscriptionFanOut } from '../../field-rules/per-character';
import { inputCheckOf, perCharacterOf } from '../../field-rules/per-character';
import type { InputCheck } from '../../field-rules/per-character';

type Resolve = GraphQLFieldResolver<unknown, GatewayContext>;
type Subscribe = GraphQLFieldResolver<unknown, SubscriptionContext>;
type Events = AsyncIterableIterator<FeedMessage<object>>;

/** The company a write names: `input.factoryId`, else `factoryId`. */
function factoryIdOf(args: Record<string, unknown>): string | undefined {
  const input = args.input;
  const id =
    input !== null && typeof input === 'object' ? (input as { factoryId?: unknown }).factoryId : args.factoryId;
  return typeof id === 'string' ? id : undefined;
}

/** A root field declared `perCharacter: 'each'`: once per key, the lists merged (see `mergeAcrossKeys`). */
function eachKey(resolve: Resolve): Resolve {
  return (root, args, ctx, info) =>
    ctx.owners
      ? mergeAcrossKeys(
          ctx,
          ctx.owners,
          info,
          (keyContext) => resolve(root, args, keyContext, info) as unknown[] | null,
        )
      : resolve(root, args, ctx, info);
}

/** A root field declared `perCharacter: 'find'`: once per key, the first answer (see `firstAcrossKeys`). */
function findInKeys(resolve: Resolve): Resolve {
  return (root, args, ctx, info) =>
    ctx.owners
      ? firstAcrossKeys<unknown, GatewayContext>(ctx.owners, (keyContext) => resolve(root, args, keyContext, info))
      : resolve(root, args, ctx, info);
}

/**
 * A write declared `perCharacter: 'owner'`: with the key owning the company it names (see
 * `asCompanyOwner`); its `@CheckedBeforeOwner` input checks run before that lookup, so bad
 * input is refused before any upstream request with several keys as with one.
 */
function asOwner(resolve: Resolve, check: InputCheck | undefined): Resolve {
  return (root, args, ctx, info) => {
    const factoryId = ctx.owners ? factoryIdOf(args) : undefined;
    if (factoryId === undefined) return resolve(root, args, ctx, info);
    check?.(args, ctx);
    return asCompanyOwner(ctx, factoryId, (keyContext) => resolve(root, args, keyContext, info));
  };
}

/** A field resolver below the root: with the key that answered its root (see `owned`). */
function withRootOwner(resolve: Resolve): Resolve {
  return (root, args, ctx, info) =>
    ctx.owners && root !== null && typeof root === 'object'
      ? owned(ctx, root, (keyContext) => resolve(root, args, keyContext, info))
      : resolve(root, args, ctx, info);
}

/** The fan-out a root field declares on its `@UpstreamCost` (`perCharacter`), as a wrapper; undefined when it runs once, with the operation's context. */
function rootWrapper(field: GraphQLField<unknown, unknown>): ((resolve: Resolve) => Resolve) | undefined {
  switch (upstreamCostOf(field)?.perCharacter) {
    case 'each':
      return eachKey;
    case 'find':
      return findInKeys;
    case 'owner':
      return (resolve) => asOwner(resolve, inputCheckOf(field));
    default:
      return undefined;
  }
}

/**
 * A subscription's `subscribe` as its `@PerCharacter` declares: with the key owning what
 * its argument names (see `subscribeAsOwner`), or with every key, the events merged and
 * each naming its character (see `subscribeAcrossKeys`). Only a token over several
 * characters over a subscription transport (`ctx.subscription`) fans out.
 */
function subscribeWith(fanOut: SubscriptionFanOut, subscribe: Subscribe): Subscribe {
  if ('each' in fanOut) {
    const property = fanOut.each;
    return (root, args, ctx, info) =>
      ctx.owners && ctx.subscription
        ? subscribeAcrossKeys(
            ctx,
            async (keyContext) => (await subscribe(root, args, keyContext, info)) as Events,
            (event, character) => ({ ...event, [property]: character }),
          )
        : subscribe(root, args, ctx, info);
  }
  const { owner, arg } = fanOut;
  return (root, args, ctx, info) => {
    const id = args[arg];
    return ctx.owners && ctx.subscription && typeof id === 'string'
      ? subscribeAsOwner(ctx, owner, id, async (keyContext) => subscribe(root, args, keyContext, info))
      : subscribe(root, args, ctx, info);
  };
}

function wrap(
  type: GraphQLObjectType | null | undefined,
  name: string,
  wrapper: ((resolve: Resolve) => Resolve) | undefined,
): void {
  const field = type?.getFields()[name];
  if (!field?.resolve || !wrapper) return;
  field.resolve = wrapper(field.resolve as Resolve);
}

/**
 * Runs an operation of a token over several characters (`ctx.owners`) over its keys:
 * each query or mutation declaring `perCharacter` on its `@UpstreamCost` runs once per key
 * and merges (`each`: lists joined in the token's order, a failing key's error at the
 * field's path with `extensions.character`), once per key taking the first answer
 * (`find`), or with the key owning the company it names (`owner`); every field resolver
 * of an object type runs with the key that answered its root, and its result is that
 * key's. The resolvers themselves get one key's context and never look at `owners`.
 *
 * A subscription declaring `@PerCharacter` opens its feeds with the key owning what its
 * argument names, or with every key, the events merged; the fields of its events run
 * with their objects' keys like any other.
 *
 * With one key each wrapper only reads `ctx.owners` and calls the resolver: no promise
 * or closure is added per field.
 *
 * @param resolvers - the resolver classes the schema was built from
 * @returns the same schema, its resolvers wrapped
 */
export function perCharacterResolvers(schema: GraphQLSchema, resolvers: readonly ResolverClass[]): GraphQLSchema {
  const storage = getMetadataStorage();
  const ours = new Set<object>(resolvers);
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  for (const [type, handlers] of [
    [query, storage.queries],
    [mutation, storage.mutations],
  ] as const) {
    for (const handler of handlers) {
      const field = ours.has(handler.target) ? type?.getFields()[handler.schemaName] : undefined;
      if (field) wrap(type, handler.schemaName, rootWrapper(field));
    }
  }
  const subscription = schema.getSubscriptionType();
  for (const handler of storage.subscriptions) {
    const field = ours.has(handler.target) ? subscription?.getFields()[handler.schemaName] : undefined;
    const fanOut = field ? perCharacterOf(field) : undefined;
    if (field?.subscribe && fanOut) field.subscribe = subscribeWith(fanOut, field.subscribe as Subscribe);
  }
  for (const handler of storage.fieldResolvers) {
    if (handler.kind !== 'external' || !handler.getObjectType || !ours.has(handler.target)) continue;
    const objectClass = handler.getObjectType();
    const typeName = storage.objectTypes.find((objectType) => objectType.target === objectClass)?.name;
    const type = typeName === undefined ? undefined : schema.getType(typeName);
    if (isObjectType(type)) wrap(type, handler.schemaName, withRootOwner);
  }
  return schema;
}
