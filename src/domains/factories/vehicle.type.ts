import { Field, Int, ObjectType } from 'type-graphql';

/** A vehicle of a car dealership. */
@ObjectType({ description: 'A vehicle whose dealership (carShop) is the company.' })
export class Vehicle {
  @Field(() => String, { description: 'Vehicle model name.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Image URL; a URL only with premium access, else null.' })
  image!: string | null;

  @Field(() => String, { description: 'Number plate.' })
  numberPlate!: string;

  @Field(() => Int, { description: 'Distance driven, in whole metres.' })
  distance!: number;

  @Field(() => String, { description: 'Engine description.' })
  engine!: string;
}
