import { ArgsType, Field, Float, Int, ObjectType } from 'type-graphql';
import { BOUNDS, boundsText, intRule } from '../../field-rules/bounds';
import { ItemAmount } from '../shared/item-amount.type';

/** One purchase in a company's buy log. */
@ObjectType({ description: "One purchase recorded in the company's buy log (meant for workshops at present)." })
export class BuyLogEntry {
  @Field(() => String, { description: 'The seller.' })
  seller!: string;

  @Field(() => String, { description: 'The buyer.' })
  buyer!: string;

  @Field(() => Float, { description: 'Price paid.' })
  price!: number;

  @Field(() => Float, { nullable: true, description: 'Discount granted, or null.' })
  discount!: number | null;

  @Field(() => [ItemAmount], { description: 'The items bought.' })
  items!: ItemAmount[];

  @Field(() => Date, { description: 'When the purchase happened (ISO 8601).' })
  createdAt!: Date;
}

/** Bounds of a buy log page, declared once for `Factory.buyLog`. */
export const BUY_LOG_PAGE_BOUNDS = Object.freeze({
  limit: intRule(BOUNDS.buyLogLimit),
  skip: intRule(BOUNDS.buyLogSkip),
});

/** The arguments of `Factory.buyLog`: one page of the buy log. */
@ArgsType()
export class BuyLogPageArgs {
  @Field(() => Int, {
    defaultValue: 50,
    description: `Page size; ${boundsText('limit', BUY_LOG_PAGE_BOUNDS.limit)}, default 50. Out of bounds: BAD_USER_INPUT before any upstream request.`,
  })
  limit!: number;

  @Field(() => Int, {
    defaultValue: 0,
    description: `Entries to skip; ${boundsText('skip', BUY_LOG_PAGE_BOUNDS.skip)}, default 0. Out of bounds: BAD_USER_INPUT before any upstream request.`,
  })
  skip!: number;
}
