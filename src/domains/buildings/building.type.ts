import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';
import { BankAccount } from '../shared/bank-account.type';

/** A building owned directly by the character, from `GET /building/list`. */
@ObjectType({
  description: `A building owned directly by the key's character (not a rented flat, not employment). The scalar fields come from ${ENDPOINTS.buildingList.route} (scope building); every other field needs its own upstream request and is null when that request fails.`,
})
export class Building {
  @Field(() => ID, { description: 'Opaque building identifier.' })
  id!: string;

  @Field(() => String, { description: 'Building hash.' })
  hash!: string;

  @Field(() => String, { description: 'Label of the building.' })
  label!: string;

  @Field(() => String, { description: 'Address of the building.' })
  address!: string;
}

/** Master data and occupancy of a building. */
@ObjectType({ description: 'Master data and current occupancy of a building. Source: GET /building/details/{id}.' })
export class BuildingDetails {
  @Field(() => String, { description: 'Area (as the upstream describes it).' })
  area!: string;

  @Field(() => Int, { description: 'Number of garage slots.' })
  garageSlots!: number;

  @Field(() => Float, { description: 'Price of the building.' })
  price!: number;

  @Field(() => Int, { description: 'Number of rooms.' })
  totalRooms!: number;

  @Field(() => Int, { description: 'Number of occupied rooms.' })
  occupiedRooms!: number;

  @Field(() => Int, { description: 'Number of free rooms.' })
  freeRooms!: number;
}

/** Capacities of a room's furniture. */
@ObjectType({ description: "Capacities of a room's storage furniture." })
export class RoomInteriorDetails {
  @Field(() => Float, { description: 'Inventory capacity.' })
  inventoryCapacity!: number;

  @Field(() => Float, { description: 'Kitchen capacity.' })
  kitchenCapacity!: number;

  @Field(() => Float, { description: 'Wardrobe capacity.' })
  wardrobeCapacity!: number;
}

/** A room of a building. `buildingId` is kept for the joins `Room.building` and `Room.tenant`. */
@ObjectType({
  description:
    'A room of a building. Source: GET /building/rooms/{id}. The upstream never names the tenant in a room; Room.tenant joins it from the tenant list.',
})
export class Room {
  @Field(() => ID, { description: 'Opaque room identifier.' })
  id!: string;

  @Field(() => String, { description: 'Room hash.' })
  hash!: string;

  @Field(() => String, { description: 'Room name.' })
  name!: string;

  @Field(() => Float, { description: 'Rent of the room.' })
  rent!: number;

  @Field(() => Boolean, { description: 'Whether the room is rented.' })
  occupied!: boolean;

  @Field(() => String, { description: 'Interior description.' })
  interior!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Interior image URL; a URL only with premium access, else null.',
  })
  interiorImage!: string | null;

  @Field(() => RoomInteriorDetails, { description: "Capacities of the room's storage furniture." })
  interiorDetails!: RoomInteriorDetails;

  /** The building the room was read from (not a GraphQL field). */
  buildingId!: string;
}

/** A tenant of a building. `buildingId` is kept for the join `Tenant.room`. */
@ObjectType({ description: 'A tenant of a building. Source: GET /building/tenants/{id} (premium only).' })
export class Tenant {
  @Field(() => ID, { description: 'Identifier of the rented room.' })
  roomId!: string;

  @Field(() => String, { description: 'Hash of the rented room.' })
  roomHash!: string;

  @Field(() => String, { description: 'Name of the rented room.' })
  roomName!: string;

  @Field(() => String, { description: 'Name of the tenant.' })
  tenantName!: string;

  @Field(() => Date, {
    nullable: true,
    description: 'Last rent payment (ISO 8601). Only with scope building.tenants.activity, else null.',
  })
  lastPayDate!: Date | null;

  /** The building the tenant was read from (not a GraphQL field). */
  buildingId!: string;
}

/** A bank account of a building; `transactions` is resolved by `BuildingBankAccountResolver`. */
@ObjectType({
  implements: BankAccount,
  description: 'A bank account of a building. Source: GET /building/bankaccounts/{id} (premium only).',
})
export class BuildingBankAccount extends BankAccount {
  @Field(() => Boolean, { description: "Whether this is the building's main account." })
  main!: boolean;
}
