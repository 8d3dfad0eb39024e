/**
 * `siteDocumentChanged(factoryId, name)`: a site document's committing slot, polled from
 * `GET /factory/options/{id}/{slot}`. One subscribable resource in one file: the event
 * type, the diff, the feed and the field.
 */
import { Arg, Ctx, Field, ID, Int, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { badInputError } from '../../errors/gateway-error';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import { checkFactoryOwned, fetchOption } from '../factories/factories.api';
import type { SubscriptionContext } from '../gateway-context';
import { NAME_PATTERN } from './site-document.codec';
import type { Manifest } from './site-document.codec';
import { findDocument, infoOf, manifestIn } from './site-document.layout';
import type { SlotReader } from './site-document.layout';
import { NAME_RULE, SiteDocumentInfo } from './site-document.type';
import { PerCharacter } from '../../field-rules/per-character';

/** Event of `siteDocumentChanged`. */
@ObjectType({
  description:
    'A site document was written (a new version) or deleted, by this gateway or anything else. Carries the manifest, not the value: read Factory.siteDocument(name) { value } for it.',
})
export class SiteDocumentChange {
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  @Field(() => String, { description: "The document's name." })
  name!: string;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => Int, {
    nullable: true,
    description: 'The version before the change; null when the document did not exist.',
  })
  previousVersion!: number | null;

  @Field(() => SiteDocumentInfo, {
    nullable: true,
    description: 'The document now (version, updatedAt, bytes, slots); null when it was deleted.',
  })
  document!: SiteDocumentInfo | null;
}

/** What one poll saw: the committing slot and its manifest, or none. */
interface DocumentState {
  slot: number | null;
  manifest: Manifest | null;
}

/** The events between two polls: a new version (or a rewrite of the same), or the deletion. */
export function diffDocument(
  factoryId: string,
  name: string,
  previous: DocumentState,
  next: DocumentState,
  observedAt: Date,
): SiteDocumentChange[] {
  const records = (state: DocumentState): Array<{ slot: number; manifest: Manifest }> =>
    state.manifest && state.slot !== null ? [{ slot: state.slot, manifest: state.manifest }] : [];
  return diffRecords(
    records(previous),
    records(next),
    () => name,
    (a, b) => a.manifest.version === b.manifest.version && a.manifest.sha256 === b.manifest.sha256,
  ).map(({ before, after }) => ({
    factoryId,
    name,
    observedAt,
    previousVersion: before?.manifest.version ?? null,
    document: after ? infoOf(after.manifest, after.slot) : null,
  }));
}

/**
 * The feed of `siteDocumentChanged`: the first poll checks that the key owns the company
 * (`GET /factory/list/`, usually cached) and finds the committing slot by probing from the
 * name's home slot; later polls read that one slot, and probe again only when it no longer
 * commits the name (the document was deleted, or written anew elsewhere). While there is
 * no document, each poll probes every slot (a new document may commit in any free slot).
 *
 * @throws GatewayError `NOT_FOUND` from the first poll when the key's character owns no such company.
 */
export function siteDocumentFeed(
  factoryId: string,
  name: string,
  slotCount: number,
): Feed<DocumentState, SiteDocumentChange> {
  let known: number | null = null;
  return {
    kind: 'siteDocument',
    resource: `siteDocument/${factoryId}/${name}`,
    endpoint: ENDPOINTS.factoryOption,
    async poll(session, first) {
      if (first) await checkFactoryOwned(session, factoryId);
      const reader: SlotReader = { read: (slot) => fetchOption(session, { id: factoryId, slot }) };
      if (known !== null) {
        const manifest = manifestIn(await reader.read(known));
        if (manifest?.name === name) return { slot: known, manifest };
      }
      const found = await findDocument(reader, name, slotCount);
      known = found?.manifestSlot ?? null;
      return { slot: known, manifest: found?.manifest ?? null };
    },
    diff: (previous, next, observedAt) => diffDocument(factoryId, name, previous, next, observedAt),
    adopt(state) {
      known = state.slot;
    },
  };
}

/** `siteDocumentChanged`: one site document of a company. */
@Resolver()
export class SiteDocumentSubscriptionResolver {
  /** One event per new version or deletion; one poller per key, company and name. */
  @PerCharacter({ owner: 'factories', arg: 'factoryId' })
  @Subscription(() => SiteDocumentChange, {
    description: `A site document got a new version or was deleted, by this gateway or anything else. Polls only the document's committing slot within the key's upstream budget (the first poll finds it from the name's home slot, and checks the company is owned with GET /factory/list/; while there is no document, every slot). ${describePolling(ENDPOINTS.factoryOption)} Name: ${NAME_RULE}, else BAD_USER_INPUT.`,
    subscribe: ({ args, context }) => {
      const { factoryId, name } = args as { factoryId: string; name: string };
      if (!NAME_PATTERN.test(name)) throw badInputError(`A site document name is ${NAME_RULE}.`, 'name');
      return openFeeds(context as SubscriptionContext, [
        siteDocumentFeed(factoryId, name, (context as SubscriptionContext).optionSlots),
      ]);
    },
  })
  siteDocumentChanged(
    @Root() message: FeedMessage<SiteDocumentChange>,
    @Arg('factoryId', () => ID, { description: "The company (must be owned by the key's character, else NOT_FOUND)." })
    _factoryId: string,
    @Arg('name', () => String, { description: `The document's name, ${NAME_RULE}.` }) _name: string,
    @Ctx() ctx: SubscriptionContext,
  ): SiteDocumentChange {
    return eventOf(message, ctx);
  }
}
