import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { BOUNDS, boundsText, intRule, lengthRule, rangeText, ValueBounds } from '../../field-rules/bounds';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';

/** One free-text option slot of a company (data for external company websites). */
@ObjectType({
  description:
    'One free-text option slot of a company (ten per company). Option data has no effect on the game; it is meant for external company websites.',
})
export class FactoryOption {
  @Field(() => Int, { description: `Slot number, ${rangeText('slot', BOUNDS.slot)} (the upstream calls it option).` })
  slot!: number;

  @Field(() => String, { description: `Title, at most ${BOUNDS.titleLength.max} characters.` })
  title!: string;

  @Field(() => String, { description: `Data, at most ${BOUNDS.dataLength.max} characters.` })
  data!: string;

  @Field(() => Date, {
    nullable: true,
    description:
      'When the slot was last written (the upstream field lastUpdated; records that say lastUpdate are read too).',
  })
  lastUpdated!: Date | null;
}

/** Bounds of a `slot` argument (`Factory.option`, `Subscription.factoryOptionChanged`). */
export const SLOT_BOUNDS = Object.freeze({ slot: intRule(BOUNDS.slot) });

/** Bounds of `updateFactoryOption`'s input fields, declared once: on the fields and in the descriptions. */
export const UPDATE_OPTION_BOUNDS = Object.freeze({
  slot: intRule(BOUNDS.slot),
  title: lengthRule(BOUNDS.titleLength),
  data: lengthRule(BOUNDS.dataLength),
});

/** Input of `updateFactoryOption`. Bounds are checked before any upstream request. */
@InputType({
  description: `Input of updateFactoryOption. ${describeSource(ENDPOINTS.factoryOptionUpdate)} Bounds are checked before any upstream request.`,
})
export class UpdateFactoryOptionInput {
  @Field(() => ID, {
    description: "The company (factoryId) whose slot is written; must be owned by the key's character.",
  })
  factoryId!: string;

  @ValueBounds(UPDATE_OPTION_BOUNDS.slot)
  @Field(() => Int, { description: `Slot number; ${boundsText('slot', UPDATE_OPTION_BOUNDS.slot)}.` })
  slot!: number;

  @ValueBounds(UPDATE_OPTION_BOUNDS.title)
  @Field(() => String, {
    description: `Title; ${boundsText('title', UPDATE_OPTION_BOUNDS.title)} (a surrogate pair, e.g. an emoji, counts once).`,
  })
  title!: string;

  @ValueBounds(UPDATE_OPTION_BOUNDS.data)
  @Field(() => String, {
    description: `Data; ${boundsText('data', UPDATE_OPTION_BOUNDS.data)} (a surrogate pair counts once).`,
  })
  data!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT.',
  })
  apiSecret?: string | null;
}

/** Result of `updateFactoryOption`. */
@ObjectType({ description: 'Result of updateFactoryOption.' })
export class UpdateFactoryOptionPayload {
  @Field(() => String, {
    description: "The upstream's message, e.g. 'option was updated' (plain text or a JSON string, without quotes).",
  })
  message!: string;

  @Field(() => Boolean, {
    description:
      "True when the upstream took the write within the request's patience (UPSTREAM_PATIENCE_MS, or Prefer: wait=N). False: the key's budget had no room yet; the write stays queued ahead of the key's background work, goes upstream with the next request the budget allows, and retryAfterSeconds says when (message is then the gateway's, not the upstream's).",
  })
  committed!: boolean;

  @Field(() => Int, {
    nullable: true,
    description:
      "When committed is false: seconds until the write is expected to reach the upstream, planned on the key's budget behind the writes queued before it. Null once committed.",
  })
  retryAfterSeconds!: number | null;

  /** Which company and slot were written; used to read the slot back when `option` is selected. */
  factoryId!: string;
  /** The slot that was written, 1..10. */
  slot!: number;
}
