import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { Room, Tenant } from './building.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';
import { whenReady } from '../shared/maybe-promise';

/** The join the REST API lacks: `Tenant.room`. */
@Resolver(() => Tenant)
export class TenantResolver {
  /** `Tenant.room`: the rented room, joined from the building's room list by room id (shared with `Building.rooms`); null when the list no longer has it. */
  @UpstreamCost({ requests: 1 })
  @FieldResolver(() => Room, {
    nullable: true,
    description: `The rented room, joined from the building's room list by roomId (shared with Building.rooms in one operation). ${describeSource(ENDPOINTS.buildingRooms)}`,
  })
  room(@Root() tenant: Tenant, @Ctx() ctx: GatewayContext): MaybePromise<Room | null> {
    const rooms = ctx.loaders.buildings.rooms.loadNow(tenant.buildingId);
    return whenReady(rooms, (list) => list.find((room) => room.id === tenant.roomId) ?? null);
  }
}
