import { Arg, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';

/** Resolves `Query.buildings`, `Query.building(id)` and the upstream-backed fields of `Building`. */
@Resolver(() => Building)
export class BuildingResolver {
  /**
   * `Query.buildings`: the buildings owned directly by the key's character (`GET /building/list`, once per operation); rejects with UNAUTHENTICATED without a key and the upstream's error otherwise.
   */
  @UpstreamCost({ requests: 1, list: 'buildings', perCharacter: 'each' })
  @Query(() => [Building], {
    nullable: true,
    description: `Buildings owned directly by the key's character. ${describeSource(ENDPOINTS.buildingList)}`,
  })
  buildings(@Ctx() ctx: GatewayContext): MaybePromise<Building[]> {
    return ctx.loaders.buildings.list.loadNow('all');
  }

  /**
   * `Query.building(id)`: one building from the same list as `buildings` (no request of its own when the list is loaded); null when the character does not own it.
   */
  @UpstreamCost({ requests: 1, perCharacter: 'find' })
  @Query(() => Building, {
    nullable: true,
    description: `One owned building, or null when the character does not own it. Read from the building list: ${describeSource(ENDPOINTS.buildingList)}`,
  })
  async building(
    @Arg('id', () => ID, { description: 'Building identifier.' }) id: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<Building | null> {
    return (await ctx.loaders.buildings.list.load('all')).find((building) => building.id === id) ?? null;
  }

  /** `Building.details`: master data and occupancy (`GET /building/details/{id}`, once per building and operation); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => BuildingDetails, {
    nullable: true,
    description: `Master data and current occupancy. ${describeSource(ENDPOINTS.buildingDetails)}`,
  })
  details(@Root() building: Building, @Ctx() ctx: GatewayContext): MaybePromise<BuildingDetails> {
    return ctx.loaders.buildings.details.loadNow(building.id);
  }

  /** `Building.rooms`: the building's rooms (`GET /building/rooms/{id}`, shared with `Tenant.room` in one operation); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1, list: 'rooms' })
  @FieldResolver(() => [Room], {
    nullable: true,
    description: `The building's rooms. ${describeSource(ENDPOINTS.buildingRooms)}`,
  })
  rooms(@Root() building: Building, @Ctx() ctx: GatewayContext): MaybePromise<Room[]> {
    return ctx.loaders.buildings.rooms.loadNow(building.id);
  }

  /**
   * `Building.tenants`: the building's tenants (`GET /building/tenants/{id}`, premium-only: FORBIDDEN with `premium: true` without it); an upstream failure nulls the field.
   */
  @UpstreamCost({ requests: 1, list: 'rooms' })
  @FieldResolver(() => [Tenant], {
    nullable: true,
    description: `The building's tenants; lastPayDate needs scope building.tenants.activity. ${describeSource(ENDPOINTS.buildingTenants)} Without premium: FORBIDDEN with premium: true.`,
  })
  tenants(@Root() building: Building, @Ctx() ctx: GatewayContext): MaybePromise<Tenant[]> {
    return ctx.loaders.buildings.tenants.loadNow(building.id);
  }

  /**
   * `Building.bankAccounts`: the building's bank accounts (`GET /building/bankaccounts/{id}`, premium-only: FORBIDDEN with `premium: true` without it); an upstream failure nulls the field.
   */
  @UpstreamCost({ requests: 1, list: 'bankAccounts' })
  @FieldResolver(() => [BuildingBankAccount], {
    nullable: true,
    description: `The building's bank accounts. ${describeSource(ENDPOINTS.buildingBankAccounts)} Without premium: FORBIDDEN with premium: true.`,
  })
  bankAccounts(@Root() building: Building, @Ctx() ctx: GatewayContext): MaybePromise<BuildingBankAccount[]> {
    return ctx.loaders.buildings.bankAccounts.loadNow(building.id);
  }
}
