import { Field, Float, ObjectType } from 'type-graphql';

/** A company's sell offer on the market. */
@ObjectType({ description: 'A sell offer of the company on the market.' })
export class MarketOfferSell {
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  @Field(() => Float, { description: 'Price per unit.' })
  pricePerUnit!: number;

  @Field(() => Float, { description: 'Price of the whole offer.' })
  totalPrice!: number;

  @Field(() => Float, { description: 'Units still available.' })
  availableAmount!: number;

  @Field(() => Date, { description: 'When the offer was created (ISO 8601).' })
  createdAt!: Date;

  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** A company's buy offer on the market. */
@ObjectType({ description: 'A buy offer of the company on the market.' })
export class MarketOfferBuy extends MarketOfferSell {
  @Field(() => Float, {
    nullable: true,
    description: "The item's list price; null when the upstream leaves it out (seen in community clients).",
  })
  listPrice!: number | null;
}
