/**
 * `myAuctionChanged`: the character's own import and export auctions, polled from
 * `GET /market/my/auctions/import` and `…/export`. One subscribable resource in one
 * file: the event type, the diff, the feed (fetch, diff, interval class) and the field.
 */
import {
  createUnionType,
  Ctx,
  Field,
  Float,
  ObjectType,
  registerEnumType,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { SubscriptionContext } from '../gateway-context';
import { MyExportAuction, MyImportAuction } from './auction.type';
import { fetchMyExportAuctions, fetchMyImportAuctions } from './market.api';
import { PerCharacter } from '../../field-rules/per-character';

/** What happened to one of the character's auctions. */
export enum AuctionChangeKind {
  NEW = 'NEW',
  OUTBID = 'OUTBID',
  LEADING = 'LEADING',
  BID_CHANGED = 'BID_CHANGED',
  ENDED = 'ENDED',
}

registerEnumType(AuctionChangeKind, {
  name: 'AuctionChangeKind',
  description: "What happened to one of the character's auctions.",
  valuesConfig: {
    NEW: { description: 'an auction of the character that was not there before' },
    OUTBID: { description: 'someone else now holds the highest bid' },
    LEADING: { description: 'the character now holds the highest bid' },
    BID_CHANGED: { description: 'the bid amount changed without a change of leader' },
    ENDED: { description: "the auction is gone from the character's list" },
  },
});

/**
 * One of the character's auctions: import or export. Export auctions are told apart
 * by their lot fields (`totalWeight`), which import auctions lack.
 */
const MyAuction = createUnionType({
  name: 'MyAuction',
  description: "One of the character's import or export auctions.",
  types: () => [MyImportAuction, MyExportAuction] as const,
  resolveType: (value) => ('totalWeight' in value ? MyExportAuction : MyImportAuction),
});

/** Event of `myAuctionChanged`. */
@ObjectType({ description: "A change of one of the character's import or export auctions." })
export class AuctionChange {
  @Field(() => AuctionChangeKind, { description: 'What happened.' })
  kind!: AuctionChangeKind;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => MyAuction, { description: 'the auction as last seen (for ENDED, as it was before it disappeared)' })
  auction!: MyImportAuction | MyExportAuction;

  @Field(() => Float, {
    nullable: true,
    description: 'The bid before the change (as bidAmount gives it), for OUTBID, LEADING and BID_CHANGED; else null.',
  })
  previousBidAmount!: number | null;

  /** The character whose auction it is (a token over several characters), set when the part's events are merged; read by `AuctionChange.owner`. */
  character?: { readonly id: string; readonly name: string };
}

/** One of the character's auctions. */
export type MyAuctionValue = MyImportAuction | MyExportAuction;

/** A change of one of the character's auctions. */
export interface AuctionDiff<A extends MyAuctionValue> {
  /** What happened, as {@link AuctionChangeKind} names it. */
  kind: keyof typeof AuctionChangeKind;
  /** The auction as last seen. */
  auction: A;
  /** The bid before, for `OUTBID`, `LEADING` and `BID_CHANGED`; else null. */
  previousBidAmount: number | null;
}

/**
 * The changes of the character's auctions, matched by id: new ones, ended ones (gone
 * from the list; reported as last seen), a change of the highest bidder (OUTBID when
 * the character lost it, LEADING when it gained it) and a new bid with the same leader.
 */
export function diffAuctions<A extends MyAuctionValue>(before: readonly A[], after: readonly A[]): AuctionDiff<A>[] {
  const same = (a: A, b: A): boolean => a.isLastBidderMe === b.isLastBidderMe && a.bidAmount === b.bidAmount;
  return diffRecords(before, after, (auction) => auction.id, same).map(
    ({ before: previous, after: auction }): AuctionDiff<A> => {
      if (!auction) return { kind: 'ENDED', auction: previous as A, previousBidAmount: null };
      if (!previous) return { kind: 'NEW', auction, previousBidAmount: null };
      if (previous.isLastBidderMe !== auction.isLastBidderMe)
        return { kind: auction.isLastBidderMe ? 'LEADING' : 'OUTBID', auction, previousBidAmount: previous.bidAmount };
      return { kind: 'BID_CHANGED', auction, previousBidAmount: previous.bidAmount };
    },
  );
}

/** The feed of one half of `myAuctionChanged`: import (`GET /market/my/auctions/import`) or export (`…/export`). */
export function myAuctionsFeed(which: 'import' | 'export'): Feed<MyAuctionValue[], AuctionChange> {
  return {
    kind: which === 'import' ? 'myImportAuctions' : 'myExportAuctions',
    resource: `myAuctions/${which}`,
    endpoint: which === 'import' ? ENDPOINTS.myImportAuctions : ENDPOINTS.myExportAuctions,
    poll: (session) => (which === 'import' ? fetchMyImportAuctions(session) : fetchMyExportAuctions(session)),
    diff: (previous, next, observedAt) =>
      diffAuctions(previous, next).map((change) => ({
        kind: AuctionChangeKind[change.kind],
        observedAt,
        auction: change.auction,
        previousBidAmount: change.previousBidAmount,
      })),
  };
}

/** `myAuctionChanged`: the character's own import and export auctions. */
@Resolver()
export class AuctionSubscriptionResolver {
  /** One event per change of the character's auctions, from two polls per interval. */
  @PerCharacter({ each: 'character' })
  @Subscription(() => AuctionChange, {
    description: `Changes of the character's own import and export auctions (two polls per interval): ${describePolling(ENDPOINTS.myImportAuctions, ENDPOINTS.myExportAuctions)} An access token over several characters watches every character's auctions, each with its own key (owner names the character); one key's failure is an error event naming it (extensions.character) and leaves the others' events.`,
    subscribe: ({ context }) =>
      openFeeds(context as SubscriptionContext, [myAuctionsFeed('import'), myAuctionsFeed('export')]),
  })
  myAuctionChanged(@Root() message: FeedMessage<AuctionChange>, @Ctx() ctx: SubscriptionContext): AuctionChange {
    return eventOf(message, ctx);
  }
}
