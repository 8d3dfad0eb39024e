import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { Building, Room, Tenant } from './building.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';
import { whenReady } from '../shared/maybe-promise';

/** The joins the REST API lacks: `Room.building` and `Room.tenant`. */
@Resolver(() => Room)
export class RoomResolver {
  /**
   * `Room.building`: the room's building, found in the building list (`GET /building/list`, shared with `Query.buildings`); null when the list no longer has it.
   */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Building, {
    nullable: true,
    description: `The building the room belongs to, from the building list (shared with Query.buildings in one operation). ${describeSource(ENDPOINTS.buildingList)}`,
  })
  building(@Root() room: Room, @Ctx() ctx: GatewayContext): MaybePromise<Building | null> {
    return whenReady(
      ctx.loaders.buildings.list.loadNow('all'),
      (all) => all.find((building) => building.id === room.buildingId) ?? null,
    );
  }

  /**
   * `Room.tenant`: the tenant of an occupied room, joined from the building's tenant list by room id; null for a vacant room (then without any request). Rejects with the tenant list's upstream error.
   */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Tenant, {
    nullable: true,
    description: `The room's tenant, joined from the building's tenant list by roomId; null when vacant (no request is made for a vacant room). ${describeSource(ENDPOINTS.buildingTenants)}`,
  })
  tenant(@Root() room: Room, @Ctx() ctx: GatewayContext): MaybePromise<Tenant | null> {
    if (!room.occupied) return null;
    const tenants = ctx.loaders.buildings.tenants.loadNow(room.buildingId);
    return whenReady(tenants, (list) => list.find((tenant) => tenant.roomId === room.id) ?? null);
  }
}
