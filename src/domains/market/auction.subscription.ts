import { Ctx, Resolver, Root, Subscription } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';
import { describePolling } from '../../subscriptions/describe';
import { myAuctionsFeed } from '../../subscriptions/feeds';
import type { FeedMessage } from '../../subscriptions/poll-hub';
import { eventOf, openFeeds } from '../../subscriptions/subscription-service';
import type { SubscriptionContext } from '../../subscriptions/subscription-service';
import { AuctionChange } from './auction-change.type';

/** `myAuctionChanged`: the character's own import and export auctions. */
@Resolver()
export class AuctionSubscriptionResolver {
  @Subscription(() => AuctionChange, {
    description: `Changes of the character's own import and export auctions (two polls per interval): ${describePolling(ENDPOINTS.myImportAuctions, ENDPOINTS.myExportAuctions)}`,
    subscribe: ({ context }) => openFeeds(context, [myAuctionsFeed('import'), myAuctionsFeed('export')]),
  })
  myAuctionChanged(@Root() message: FeedMessage<AuctionChange>, @Ctx() ctx: SubscriptionContext): AuctionChange {
    return eventOf(message, ctx);
  }
}
