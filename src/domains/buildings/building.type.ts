import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';
import { BankAccount } from '../shared/bank-account.type';

/** A building owned directly by the character, from `GET /building/list`. */
@ObjectType({
  description: `A building owned directly by the key's character (not a rented flat, not employment). The scalar fields come from ${ENDPOINTS.buildingList.route} (scope building); every other field needs its own upstream request and is null when that request fails.`,
})
export class Building {
  /** Opaque building id. */
  @Field(() => ID, { description: 'Opaque building identifier.' })
  id!: string;

  /** Building hash. */
  @Field(() => String, { description: 'Building hash.' })
  hash!: string;

  /** Label. */
  @Field(() => String, { description: 'Label of the building.' })
  label!: string;

  /** Address. */
  @Field(() => String, { description: 'Address of the building.' })
  address!: string;
}

/** Master data and occupancy of a building. */
@ObjectType({ description: 'Master data and current occupancy of a building. Source: GET /building/details/{id}.' })
export class BuildingDetails {
  /** Area description. */
  @Field(() => String, { description: 'Area (as the upstream describes it).' })
  area!: string;

  /** Garage slots. */
  @Field(() => Int, { description: 'Number of garage slots.' })
  garageSlots!: number;

  /** Price. */
  @Field(() => Float, { description: 'Price of the building.' })
  price!: number;

  /** Rooms in total. */
  @Field(() => Int, { description: 'Number of rooms.' })
  totalRooms!: number;

  /** Rented rooms. */
  @Field(() => Int, { description: 'Number of occupied rooms.' })
  occupiedRooms!: number;

  /** Vacant rooms. */
  @Field(() => Int, { description: 'Number of free rooms.' })
  freeRooms!: number;
}

/** Capacities of a room's furniture. */
@ObjectType({ description: 'Capacities of a room\'s storage furniture.' })
export class RoomInteriorDetails {
  /** Inventory capacity. */
  @Field(() => Float, { description: 'Inventory capacity.' })
  inventoryCapacity!: number;

  /** Kitchen capacity. */
  @Field(() => Float, { description: 'Kitchen capacity.' })
  kitchenCapacity!: number;

  /** Wardrobe capacity. */
  @Field(() => Float, { description: 'Wardrobe capacity.' })
  wardrobeCapacity!: number;
}

/** A room of a building. `buildingId` is kept for the joins `Room.building` and `Room.tenant`. */
@ObjectType({ description: 'A room of a building. Source: GET /building/rooms/{id}. The upstream never names the tenant in a room; Room.tenant joins it from the tenant list.' })
export class Room {
  /** Opaque room id. */
  @Field(() => ID, { description: 'Opaque room identifier.' })
  id!: string;

  /** Room hash. */
  @Field(() => String, { description: 'Room hash.' })
  hash!: string;

  /** Name. */
  @Field(() => String, { description: 'Room name.' })
  name!: string;

  /** Rent. */
  @Field(() => Float, { description: 'Rent of the room.' })
  rent!: number;

  /** Whether rented. */
  @Field(() => Boolean, { description: 'Whether the room is rented.' })
  occupied!: boolean;

  /** Interior description. */
  @Field(() => String, { description: 'Interior description.' })
  interior!: string;

  /** Interior image (premium keys only). */
  @Field(() => String, { nullable: true, description: 'Interior image URL; a URL only with premium access, else null.' })
  interiorImage!: string | null;

  /** Furniture capacities. */
  @Field(() => RoomInteriorDetails, { description: 'Capacities of the room\'s storage furniture.' })
  interiorDetails!: RoomInteriorDetails;

  /** The building the room was read from (not a GraphQL field). */
  buildingId!: string;
}

/** A tenant of a building. `buildingId` is kept for the join `Tenant.room`. */
@ObjectType({ description: 'A tenant of a building. Source: GET /building/tenants/{id} (premium only).' })
export class Tenant {
  /** The rented room's id. */
  @Field(() => ID, { description: 'Identifier of the rented room.' })
  roomId!: string;

  /** The rented room's hash. */
  @Field(() => String, { description: 'Hash of the rented room.' })
  roomHash!: string;

  /** The rented room's name. */
  @Field(() => String, { description: 'Name of the rented room.' })
  roomName!: string;

  /** Tenant's name. */
  @Field(() => String, { description: 'Name of the tenant.' })
  tenantName!: string;

  /** Last rent payment; needs building.tenants.activity. */
  @Field(() => Date, { nullable: true, description: 'Last rent payment (ISO 8601). Only with scope building.tenants.activity, else null.' })
  lastPayDate!: Date | null;

  /** The building the tenant was read from (not a GraphQL field). */
  buildingId!: string;
}

/** A bank account of a building; `transactions` is resolved by `BuildingBankAccountResolver`. */
@ObjectType({ implements: BankAccount, description: 'A bank account of a building. Source: GET /building/bankaccounts/{id} (premium only).' })
export class BuildingBankAccount extends BankAccount {
  /** Whether it is the building's main account. */
  @Field(() => Boolean, { description: 'Whether this is the building\'s main account.' })
  main!: boolean;
}
