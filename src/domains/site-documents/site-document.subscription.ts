import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import { GatewayError } from '../../errors/gateway-error';
import { ENDPOINTS } from '../../upstream/endpoints';
import { describePolling } from '../../subscriptions/describe';
import { checkOwned } from '../../subscriptions/feeds';
import type { Feed } from '../../subscriptions/feeds';
import type { FeedMessage } from '../../subscriptions/poll-hub';
import { eventOf, openFeeds } from '../../subscriptions/subscription-service';
import type { SubscriptionContext } from '../../subscriptions/subscription-service';
import { fetchOption } from '../factories/factories.api';
import { NAME_PATTERN } from './site-document.codec';
import type { Manifest } from './site-document.codec';
import { findDocument, infoOf, manifestIn } from './site-document.layout';
import type { SlotReader } from './site-document.layout';
import { NAME_RULE, SiteDocumentChange } from './site-document.type';

/** What a poll saw: the committing slot and its manifest, or no document. */
interface DocumentState {
  slot: number | null;
  manifest: Manifest | null;
}

/**
 * `siteDocumentChanged(factoryId, name)`: polls only the document's committing slot
 * (`GET /factory/options/{id}/{slot}`). The first poll checks that the key owns the company
 * (`GET /factory/list/`) and finds the committing slot by probing from the name's home slot;
 * later polls read that one slot, and probe again only when it no longer commits the name
 * (the document was deleted, or written anew elsewhere). While there is no document, each
 * poll probes every slot (a new document may commit in any free slot). Events: a new version,
 * or the deletion.
 */
export function siteDocumentFeed(factoryId: string, name: string, slotCount: number): Feed<DocumentState, SiteDocumentChange> {
  let known: number | null = null;
  return {
    kind: 'siteDocument',
    resource: `siteDocument/${factoryId}/${name}`,
    endpoint: ENDPOINTS.factoryOption,
    async poll(session, first) {
      if (first) await checkOwned(session, factoryId);
      const reader: SlotReader = { read: (slot) => fetchOption(session, { id: factoryId, slot }) };
      if (known !== null) {
        const manifest = manifestIn(await reader.read(known));
        if (manifest?.name === name) return { slot: known, manifest };
      }
      const found = await findDocument(reader, name, slotCount);
      known = found?.manifestSlot ?? null;
      return { slot: known, manifest: found?.manifest ?? null };
    },
    diff(previous, next, observedAt) {
      const before = previous.manifest;
      const after = next.manifest;
      if (before?.version === after?.version && before?.sha256 === after?.sha256) return [];
      return [{ factoryId, name, observedAt, previousVersion: before?.version ?? null, document: after && next.slot !== null ? infoOf(after, next.slot) : null }];
    },
    adopt(state) {
      known = state.slot;
    },
  };
}

/** The site-document subscription. */
@Resolver()
export class SiteDocumentSubscriptionResolver {
  @Subscription(() => SiteDocumentChange, {
    description: `A site document got a new version or was deleted, by this gateway or anything else. Polls only the document's committing slot within the key's upstream budget (the first poll finds it from the name's home slot and checks the company is owned with GET /factory/list/). ${describePolling(ENDPOINTS.factoryOption)} Name: ${NAME_RULE}, else BAD_USER_INPUT.`,
    subscribe: ({ args, context }) => {
      const { factoryId, name } = args as { factoryId: string; name: string };
      if (!NAME_PATTERN.test(name)) throw new GatewayError('BAD_USER_INPUT', `A site document name is ${NAME_RULE}.`, { argument: 'name' });
      return openFeeds(context, [siteDocumentFeed(factoryId, name, (context as SubscriptionContext).optionSlots)]);
    },
  })
  siteDocumentChanged(
    @Root() message: FeedMessage<SiteDocumentChange>,
    @Arg('factoryId', () => ID, { description: 'The company (must be owned by the key\'s character, else NOT_FOUND).' }) _factoryId: string,
    @Arg('name', () => String, { description: `The document's name, ${NAME_RULE}.` }) _name: string,
    @Ctx() ctx: SubscriptionContext,
  ): SiteDocumentChange {
    return eventOf(message, ctx);
  }
}
