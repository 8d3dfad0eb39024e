import { Field, Float, ID, InterfaceType, ObjectType } from 'type-graphql';

/** Fields every auction has. */
@InterfaceType({ description: "An import or export auction, released for the company types of the key's character." })
export abstract class Auction {
  @Field(() => ID, { description: 'Opaque auction identifier.' })
  id!: string;

  @Field(() => String, { description: 'Item auctioned.' })
  item!: string;

  @Field(() => Float, { description: 'Current bid amount.' })
  bidAmount!: number;

  @Field(() => Date, { description: 'When the auction ends (ISO 8601).' })
  auctionEnd!: Date;

  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** An import auction the character bids on. */
@ObjectType({
  implements: Auction,
  description: 'An import auction of the character. Source: GET /market/my/auctions/import.',
})
export class MyImportAuction extends Auction {
  @Field(() => Boolean, { description: 'Whether the character placed the last bid.' })
  isLastBidderMe!: boolean;
}

/** An export auction of the character. */
@ObjectType({
  implements: Auction,
  description: 'An export auction of the character. Source: GET /market/my/auctions/export.',
})
export class MyExportAuction extends Auction {
  @Field(() => Boolean, { description: 'Whether the character placed the last bid.' })
  isLastBidderMe!: boolean;

  @Field(() => Float, { description: 'Units auctioned.' })
  amount!: number;

  @Field(() => Float, { description: 'Weight of one unit.' })
  singleWeight!: number;

  @Field(() => Float, { description: 'Weight of all units.' })
  totalWeight!: number;

  @Field(() => Float, {
    nullable: true,
    description: 'Duration of the auction (unit not documented upstream), or null.',
  })
  duration!: number | null;
}

/** An available import auction. */
@ObjectType({
  implements: Auction,
  description: 'An available import auction. Source: GET /market/import (premium only).',
})
export class ImportAuction extends Auction {}

/** An available export auction. */
@ObjectType({
  implements: Auction,
  description: 'An available export auction. Source: GET /market/export (premium only).',
})
export class ExportAuction extends Auction {
  @Field(() => Float, { description: 'Units auctioned.' })
  amount!: number;

  @Field(() => Float, { description: 'Weight of the lot (unit not documented upstream).' })
  weight!: number;

  @Field(() => Float, { description: 'Duration of the auction (unit not documented upstream).' })
  duration!: number;
}
