import { Field, Float, ID, InterfaceType, ObjectType } from 'type-graphql';

/** Fields every auction has. */
@InterfaceType({ description: 'An import or export auction, released for the company types of the key\'s character.' })
export abstract class Auction {
  /** Opaque id. */
  @Field(() => ID, { description: 'Opaque auction identifier.' })
  id!: string;

  /** Item name. */
  @Field(() => String, { description: 'Item auctioned.' })
  item!: string;

  /** Current bid. */
  @Field(() => Float, { description: 'Current bid amount.' })
  bidAmount!: number;

  /** End time. */
  @Field(() => Date, { description: 'When the auction ends (ISO 8601).' })
  auctionEnd!: Date;

  /** Icon URL (premium keys only). */
  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** An import auction the character bids on. */
@ObjectType({ implements: Auction, description: 'An import auction of the character. Source: GET /market/my/auctions/import.' })
export class MyImportAuction extends Auction {
  /** Whether the character holds the last bid. */
  @Field(() => Boolean, { description: 'Whether the character placed the last bid.' })
  isLastBidderMe!: boolean;
}

/** An export auction of the character. */
@ObjectType({ implements: Auction, description: 'An export auction of the character. Source: GET /market/my/auctions/export.' })
export class MyExportAuction extends Auction {
  /** Whether the character holds the last bid. */
  @Field(() => Boolean, { description: 'Whether the character placed the last bid.' })
  isLastBidderMe!: boolean;

  /** Units. */
  @Field(() => Float, { description: 'Units auctioned.' })
  amount!: number;

  /** Weight of one unit. */
  @Field(() => Float, { description: 'Weight of one unit.' })
  singleWeight!: number;

  /** Weight of all units. */
  @Field(() => Float, { description: 'Weight of all units.' })
  totalWeight!: number;

  /** Duration, if known. */
  @Field(() => Float, { nullable: true, description: 'Duration of the auction (unit not documented upstream), or null.' })
  duration!: number | null;
}

/** An available import auction. */
@ObjectType({ implements: Auction, description: 'An available import auction. Source: GET /market/import (premium only).' })
export class ImportAuction extends Auction {}

/** An available export auction. */
@ObjectType({ implements: Auction, description: 'An available export auction. Source: GET /market/export (premium only).' })
export class ExportAuction extends Auction {
  /** Units. */
  @Field(() => Float, { description: 'Units auctioned.' })
  amount!: number;

  /** Weight. */
  @Field(() => Float, { description: 'Weight of the lot (unit not documented upstream).' })
  weight!: number;

  /** Duration. */
  @Field(() => Float, { description: 'Duration of the auction (unit not documented upstream).' })
  duration!: number;
}
