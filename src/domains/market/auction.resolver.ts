import { Ctx, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { Auction, ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';

/** The four auction lists of `Query`; each is one upstream request per operation. */
@Resolver(() => Auction)
export class AuctionResolver {
  /** `Query.myImportAuctions`: the character's import auctions (`GET /market/my/auctions/import`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1, perCharacter: 'each' })
  @Query(() => [MyImportAuction], {
    nullable: true,
    description: `The character's import auctions, released for its company types. ${describeSource(ENDPOINTS.myImportAuctions)}`,
  })
  myImportAuctions(@Ctx() ctx: GatewayContext): MaybePromise<MyImportAuction[]> {
    return ctx.loaders.market.myImportAuctions.loadNow('all');
  }

  /** `Query.myExportAuctions`: the character's export auctions (`GET /market/my/auctions/export`); an upstream failure nulls the field. */
  @UpstreamCost({ requests: 1, perCharacter: 'each' })
  @Query(() => [MyExportAuction], {
    nullable: true,
    description: `The character's export auctions, released for its company types. ${describeSource(ENDPOINTS.myExportAuctions)}`,
  })
  myExportAuctions(@Ctx() ctx: GatewayContext): MaybePromise<MyExportAuction[]> {
    return ctx.loaders.market.myExportAuctions.loadNow('all');
  }

  /**
   * `Query.importAuctions`: the import auctions open to the character's company types (`GET /market/import`, premium-only: FORBIDDEN with `premium: true` without it).
   */
  @UpstreamCost({ requests: 1, perCharacter: 'each' })
  @Query(() => [ImportAuction], {
    nullable: true,
    description: `Available import auctions for the character's company types. ${describeSource(ENDPOINTS.importAuctions)} Without premium: FORBIDDEN with premium: true.`,
  })
  importAuctions(@Ctx() ctx: GatewayContext): MaybePromise<ImportAuction[]> {
    return ctx.loaders.market.importAuctions.loadNow('all');
  }

  /**
   * `Query.exportAuctions`: the export auctions open to the character's company types (`GET /market/export`, premium-only: FORBIDDEN with `premium: true` without it).
   */
  @UpstreamCost({ requests: 1, perCharacter: 'each' })
  @Query(() => [ExportAuction], {
    nullable: true,
    description: `Available export auctions for the character's company types. ${describeSource(ENDPOINTS.exportAuctions)} Without premium: FORBIDDEN with premium: true.`,
  })
  exportAuctions(@Ctx() ctx: GatewayContext): MaybePromise<ExportAuction[]> {
    return ctx.loaders.market.exportAuctions.loadNow('all');
  }
}
