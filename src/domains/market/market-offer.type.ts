import { Field, Float, ObjectType } from 'type-graphql';

/** A company's sell offer on the market. */
@ObjectType({ description: 'A sell offer of the company on the market.' })
export class MarketOfferSell {
  /** Item name. */
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  /** Price per unit. */
  @Field(() => Float, { description: 'Price per unit.' })
  pricePerUnit!: number;

  /** Price of the whole offer. */
  @Field(() => Float, { description: 'Price of the whole offer.' })
  totalPrice!: number;

  /** Units still available. */
  @Field(() => Float, { description: 'Units still available.' })
  availableAmount!: number;

  /** When the offer was made. */
  @Field(() => Date, { description: 'When the offer was created (ISO 8601).' })
  createdAt!: Date;

  /** Icon URL (premium keys only). */
  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** A company's buy offer on the market. */
@ObjectType({ description: 'A buy offer of the company on the market.' })
export class MarketOfferBuy extends MarketOfferSell {
  /** The list price of the item; null when the upstream leaves it out. */
  @Field(() => Float, { nullable: true, description: 'The item\'s list price; null when the upstream leaves it out (seen in community clients).' })
  listPrice!: number | null;
}
