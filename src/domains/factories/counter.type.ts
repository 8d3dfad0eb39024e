import { Field, Float, ObjectType } from 'type-graphql';

/** One item on a shop's counter, with its price. */
@ObjectType({ description: 'One item on the counter (shop shelf), with its sale price.' })
export class CounterItem {
  @Field(() => String, { description: 'Item name.' })
  item!: string;

  @Field(() => Float, { description: 'Sale price per unit (currency unit not documented upstream).' })
  price!: number;

  @Field(() => Float, { description: 'How many units are on the counter.' })
  amount!: number;

  @Field(() => Float, { description: 'Weight of one unit.' })
  singleWeight!: number;

  @Field(() => Float, { description: 'Weight of all units of this item.' })
  totalWeight!: number;

  @Field(() => String, { nullable: true, description: 'Icon URL; a URL only with premium access, else null.' })
  icon!: string | null;
}

/** A shop's counter. An empty counter (upstream 404 "Counter is empty") has no items. */
@ObjectType({
  description:
    'The counter (shop shelf) of an end-consumer shop (24/7 shops, restaurants, clothing shops, gas stations). An empty counter is returned as totalWeight 0 and no items (the upstream answers 404 "Counter is empty").',
})
export class Counter {
  @Field(() => Float, { description: "Total weight of the counter's contents." })
  totalWeight!: number;

  @Field(() => [CounterItem], { description: 'The items on the counter.' })
  items!: CounterItem[];
}
