import type { GraphQLSchema } from 'graphql';
import { GraphQLLiveDirective } from '@n1ru4l/graphql-live-query';
import { specifiedDirectives } from 'graphql';
import { buildSchema, emitSchemaDefinitionFile } from 'type-graphql';
import { domainResolvers } from '../domains';
import { rememberDateTimeText } from './execution/date-time-text';
import { yieldForLargeLists } from './execution/large-lists';
import { directPropertyReads, leanResolvers } from './execution/lean-resolvers';
import { perCharacterResolvers } from './execution/per-character';
import { noteStaleFields } from './execution/stale-fields';

/**
 * TypeGraphQL insists on a pub/sub as soon as there is a `@Subscription`; every
 * subscription here brings its own `subscribe` (the pollers), so nothing uses it.
 */
const NO_PUBSUB = {
  publish(): void {
    throw new Error('Subscriptions are fed by pollers (src/subscriptions/), not by topics');
  },
  subscribe(): never {
    throw new Error('Subscriptions are fed by pollers (src/subscriptions/), not by topics');
  },
};

let built: Promise<GraphQLSchema> | undefined;

/**
 * Builds the executable schema from the TypeGraphQL classes, once per process (the
 * classes never change at run time). The resolvers are every domain's, as the registry
 * of `src/domains/index.ts` finds them (by file name: no hand-kept list). Validation by class-validator is off: the
 * bounds are checked before execution by the request pipeline's `bounds` step.
 */
export function buildGatewaySchema(): Promise<GraphQLSchema> {
  built ??= Promise.resolve()
    .then(() => {
      const [first, ...rest] = domainResolvers();
      if (!first) throw new Error('No resolver found under src/domains/.');
      return buildSchema({
        resolvers: [first, ...rest],
        validate: false,
        pubSub: NO_PUBSUB,
        directives: [...specifiedDirectives, GraphQLLiveDirective],
      }).then((schema) =>
        perCharacterResolvers(leanResolvers(directPropertyReads(schema), [first, ...rest]), [first, ...rest]),
      );
    })
    .then(describeRootTypes)
    .then(noteStaleFields)
    .then(rememberDateTimeText)
    .then(yieldForLargeLists);
  return built;
}

/** TypeGraphQL has no option for root type descriptions; they are set once here. */
function describeRootTypes(schema: GraphQLSchema): GraphQLSchema {
  const query = schema.getQueryType();
  if (query) {
    query.description =
      'Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field.';
  }
  const mutation = schema.getMutationType();
  if (mutation)
    mutation.description =
      "The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it.";
  const subscription = schema.getSubscriptionType();
  if (subscription) {
    subscription.description =
      "Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md.";
  }
  return schema;
}

/** Writes the schema as SDL, exactly as the committed `schema.graphql` holds it. */
export async function emitGatewaySchema(path: string): Promise<void> {
  await emitSchemaDefinitionFile(path, await buildGatewaySchema());
}
