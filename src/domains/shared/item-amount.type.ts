import { Field, Float, ObjectType } from 'type-graphql';

/** A named quantity of an item, as used in recipes and buy log entries. */
@ObjectType({ description: 'A named quantity of an item: a production ingredient or a line of a buy log entry.' })
export class ItemAmount {
  @Field(() => String, { description: 'Item name, as the game spells it (e.g. Eisenbarren).' })
  name!: string;

  @Field(() => Float, { description: 'How many of the item (units are not documented upstream).' })
  amount!: number;
}
