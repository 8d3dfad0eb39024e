import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Room } from './building.type';

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
    RENT_CHANGED: { description: 'The room\'s rent changed (previousRent holds the old one).' },
  },
});

/** Event of `roomChanged`. */
@ObjectType({ description: 'A room of a building that became occupied or free, or whose rent changed.' })
export class RoomChange {
  @Field(() => ID, { description: 'The building.' })
  buildingId!: string;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => RoomChangeKind, { description: 'What happened.' })
  kind!: RoomChangeKind;

  @Field(() => Room, { description: 'The room after the change.' })
  room!: Room;

  @Field(() => Float, { nullable: true, description: 'The rent before, for RENT_CHANGED; else null.' })
  previousRent!: number | null;
}
