import { Field, Int, ObjectType } from 'type-graphql';

/** A vehicle of a car dealership. */
@ObjectType({ description: 'A vehicle whose dealership (carShop) is the company.' })
export class Vehicle {
  /** Model name. */
  @Field(() => String, { description: 'Vehicle model name.' })
  name!: string;

  /** Image URL (premium keys only). */
  @Field(() => String, { nullable: true, description: 'Image URL; a URL only with premium access, else null.' })
  image!: string | null;

  /** Number plate. */
  @Field(() => String, { description: 'Number plate.' })
  numberPlate!: string;

  /** Distance driven, whole metres. */
  @Field(() => Int, { description: 'Distance driven, in whole metres.' })
  distance!: number;

  /** Engine description. */
  @Field(() => String, { description: 'Engine description.' })
  engine!: string;
}
