import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';
import { describePolling } from '../../subscriptions/describe';
import { roomsFeed } from '../../subscriptions/feeds';
import type { FeedMessage } from '../../subscriptions/poll-hub';
import { eventOf, openFeeds } from '../../subscriptions/subscription-service';
import type { SubscriptionContext } from '../../subscriptions/subscription-service';
import { RoomChange } from './room-change.type';

/** `roomChanged`: occupancy and rent of a building's rooms. */
@Resolver()
export class RoomSubscriptionResolver {
  @Subscription(() => RoomChange, {
    description: `Rooms of a building that became occupied or free, or whose rent changed; one event per change. ${describePolling(ENDPOINTS.buildingRooms)}`,
    subscribe: ({ args, context }) => openFeeds(context, [roomsFeed((args as { buildingId: string }).buildingId)]),
  })
  roomChanged(
    @Root() message: FeedMessage<RoomChange>,
    @Arg('buildingId', () => ID, { description: 'The building (must be owned directly by the key\'s character, else NOT_FOUND).' }) _buildingId: string,
    @Ctx() ctx: SubscriptionContext,
  ): RoomChange {
    return eventOf(message, ctx);
  }
}
