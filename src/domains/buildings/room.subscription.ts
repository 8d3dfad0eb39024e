/**
 * `roomChanged(buildingId)`: occupancy and rent of a building's rooms, polled from
 * `GET /building/rooms/{id}`. One subscribable resource in one file: the event type,
 * the diff, the feed (fetch, diff, interval class) and the field.
 */
import { Arg, Ctx, Field, Float, ID, ObjectType, registerEnumType, Resolver, Root, Subscription } from 'type-graphql';
import { diffRecords } from '../feeds/changes';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { SubscriptionContext } from '../gateway-context';
import { Room } from './building.type';
import { fetchRooms } from './buildings.api';
import { PerCharacter } from '../../field-rules/per-character';

/** What happened to a room. */
export enum RoomChangeKind {
  OCCUPIED = 'OCCUPIED',
  FREED = 'FREED',
  RENT_CHANGED = 'RENT_CHANGED',
}

registerEnumType(RoomChangeKind, {
  name: 'RoomChangeKind',
  description: 'What happened to a room of a building.',
  valuesConfig: {
    OCCUPIED: { description: 'The room was free and is now rented.' },
    FREED: { description: 'The room was rented and is now free.' },
    RENT_CHANGED: { description: "The room's rent changed (previousRent holds the old one)." },
  },
});

/** Event of `roomChanged`. */
@ObjectType({ description: 'A room of a building that became occupied or free, or whose rent changed.' })
export class RoomChange {
  @Field(() => ID, { description: 'The building (its upstream id).' })
  buildingId!: string;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => RoomChangeKind, { description: 'What happened.' })
  kind!: RoomChangeKind;

  @Field(() => Room, { description: 'The room after the change.' })
  room!: Room;

  @Field(() => Float, {
    nullable: true,
    description: 'The rent before (as Room.rent gives it), for RENT_CHANGED; else null.',
  })
  previousRent!: number | null;
}

/** A change of one room. */
export interface RoomDiff {
  /** What happened, as {@link RoomChangeKind} names it. */
  kind: keyof typeof RoomChangeKind;
  /** The room after the change. */
  room: Room;
  /** The rent before, for `RENT_CHANGED`; else null. */
  previousRent: number | null;
}

/**
 * Rooms that became occupied or free, or whose rent changed (one change each; a room
 * whose occupancy and rent both changed yields two). A room that appears occupied
 * counts as OCCUPIED; a room that disappears yields nothing.
 */
export function diffRooms(before: readonly Room[], after: readonly Room[]): RoomDiff[] {
  const changes: RoomDiff[] = [];
  for (const { before: previous, after: room } of diffRecords(
    before,
    after,
    (each) => each.id,
    (a, b) => a.occupied === b.occupied && a.rent === b.rent,
  )) {
    if (!room) continue;
    if ((previous?.occupied ?? false) !== room.occupied)
      changes.push({ kind: room.occupied ? 'OCCUPIED' : 'FREED', room, previousRent: null });
    if (previous && previous.rent !== room.rent)
      changes.push({ kind: 'RENT_CHANGED', room, previousRent: previous.rent });
  }
  return changes;
}

/** The feed of `roomChanged(buildingId)`: `GET /building/rooms/{id}`, one poller per key and building. */
export function roomsFeed(buildingId: string): Feed<Room[], RoomChange> {
  return {
    kind: 'rooms',
    resource: `rooms/${buildingId}`,
    endpoint: ENDPOINTS.buildingRooms,
    poll: (session) => fetchRooms(session, buildingId),
    diff: (previous, next, observedAt) =>
      diffRooms(previous, next).map((change) => ({
        buildingId,
        observedAt,
        kind: RoomChangeKind[change.kind],
        room: change.room,
        previousRent: change.previousRent,
      })),
  };
}

/** `roomChanged`: occupancy and rent of a building's rooms. */
@Resolver()
export class RoomSubscriptionResolver {
  /** One event per room change of the building; see the field's description for errors. */
  @PerCharacter({ owner: 'buildings', arg: 'buildingId' })
  @Subscription(() => RoomChange, {
    description: `Rooms of a building that became occupied or free, or whose rent changed; one event per change. ${describePolling(ENDPOINTS.buildingRooms)}`,
    subscribe: ({ args, context }) => {
      const { buildingId } = args as { buildingId: string };
      return openFeeds(context as SubscriptionContext, [roomsFeed(buildingId)]);
    },
  })
  roomChanged(
    @Root() message: FeedMessage<RoomChange>,
    @Arg('buildingId', () => ID, {
      description: "The building (must be owned directly by the key's character, else NOT_FOUND).",
    })
    _buildingId: string,
    @Ctx() ctx: SubscriptionContext,
  ): RoomChange {
    return eventOf(message, ctx);
  }
}
