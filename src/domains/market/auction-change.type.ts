import { createUnionType, Field, Float, ObjectType, registerEnumType } from 'type-graphql';
import { MyExportAuction, MyImportAuction } from './auction.type';

/** What happened to one of the character's auctions. */
export enum AuctionChangeKind {
  NEW = 'NEW',
  OUTBID = 'OUTBID',
  LEADING = 'LEADING',
  BID_CHANGED = 'BID_CHANGED',
  ENDED = 'ENDED',
}

registerEnumType(AuctionChangeKind, {
  name: 'AuctionChangeKind',
  description: 'What happened to one of the character\'s auctions.',
  valuesConfig: {
    NEW: { description: 'an auction of the character that was not there before' },
    OUTBID: { description: 'someone else now holds the highest bid' },
    LEADING: { description: 'the character now holds the highest bid' },
    BID_CHANGED: { description: 'the bid amount changed without a change of leader' },
    ENDED: { description: 'the auction is gone from the character\'s list' },
  },
});

/**
 * One of the character's auctions: import or export. Export auctions are told apart
 * by their lot fields (`totalWeight`), which import auctions lack.
 */
export const MyAuction = createUnionType({
  name: 'MyAuction',
  description: 'One of the character\'s import or export auctions.',
  types: () => [MyImportAuction, MyExportAuction] as const,
  resolveType: (value) => ('totalWeight' in value ? MyExportAuction : MyImportAuction),
});

/** Event of `myAuctionChanged`. */
@ObjectType({ description: 'A change of one of the character\'s import or export auctions.' })
export class AuctionChange {
  @Field(() => AuctionChangeKind, { description: 'What happened.' })
  kind!: AuctionChangeKind;

  @Field(() => Date, { description: 'When the gateway saw the change (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => MyAuction, { description: 'the auction as last seen (for ENDED, as it was before it disappeared)' })
  auction!: MyImportAuction | MyExportAuction;

  @Field(() => Float, { nullable: true, description: 'The bid before the change, for OUTBID, LEADING and BID_CHANGED; else null.' })
  previousBidAmount!: number | null;
}
