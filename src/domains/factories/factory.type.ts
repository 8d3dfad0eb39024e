import { Field, ID, ObjectType } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';

/**
 * A company (factory) owned by the key's character, from `GET /factory/list/`.
 * Its sub-resources (stores, counter, offers, options…) are field resolvers in
 * `FactoryResolver`, each backed by its own upstream endpoint.
 */
@ObjectType({
  description: `A company (the upstream calls it factory) owned by the key's character. The scalar fields come from ${ENDPOINTS.factoryList.route} (scope factory); every other field needs its own upstream request and is null when that request fails.`,
})
export class Factory {
  @Field(() => ID, { description: "Opaque company identifier (the upstream's firmenId / factoryId)." })
  id!: string;

  @Field(() => String, { description: 'Company name.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Company hash as the upstream sends it; null when absent.' })
  hash!: string | null;

  @Field(() => String, { nullable: true, description: 'Advertising line; null when absent.' })
  adLine!: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the company is open. Filled only with scope factory.details, else null.',
  })
  isOpen!: boolean | null;

  @Field(() => String, {
    nullable: true,
    description: 'Company type (e.g. a shop type). Filled only with scope factory.details, else null.',
  })
  type!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Address of the company. Filled only with scope factory.details, else null.',
  })
  address!: string | null;
}
