import { Field, Float, ObjectType } from 'type-graphql';
import { ItemAmount } from '../shared/item-amount.type';

/** One purchase in a company's buy log. */
@ObjectType({ description: 'One purchase recorded in the company\'s buy log (meant for workshops at present).' })
export class BuyLogEntry {
  /** Who sold. */
  @Field(() => String, { description: 'The seller.' })
  seller!: string;

  /** Who bought. */
  @Field(() => String, { description: 'The buyer.' })
  buyer!: string;

  /** Price paid. */
  @Field(() => Float, { description: 'Price paid.' })
  price!: number;

  /** Discount, if any. */
  @Field(() => Float, { nullable: true, description: 'Discount granted, or null.' })
  discount!: number | null;

  /** The items bought. */
  @Field(() => [ItemAmount], { description: 'The items bought.' })
  items!: ItemAmount[];

  /** When. */
  @Field(() => Date, { description: 'When the purchase happened (ISO 8601).' })
  createdAt!: Date;
}
