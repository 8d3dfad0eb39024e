/**
 * The administration graph's alert rule types: what a rule watches, where it goes, what
 * `createAlert` takes and a rule as listed (emitted to `schema.admin.graphql` with admin-types.ts).
 * A webhook's signing secret is only in `createAlert`'s answer.
 */
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** What an alert watches. */
export enum AlertKind {
  STOCK_BELOW = 'STOCK_BELOW',
  TRANSACTION_ADDED = 'TRANSACTION_ADDED',
  OUTBID = 'OUTBID',
  RENT_OVERDUE = 'RENT_OVERDUE',
}

registerEnumType(AlertKind, {
  name: 'AlertKind',
  description: 'What an alert rule watches, on the pollers the subscriptions use (no upstream request of its own).',
  valuesConfig: {
    STOCK_BELOW: {
      description: "An item's amount in a company's store, machine store or counter falls below a threshold.",
    },
    TRANSACTION_ADDED: {
      description: "A new transaction on a company's bank account, of at least minAmount (absolute value).",
    },
    OUTBID: { description: "One of the character's import or export auctions is no longer led by the character." },
    RENT_OVERDUE: { description: "A tenant's last rent payment in a building is older than a number of days." },
  },
});

/** Which store of a company. */
export enum AlertStore {
  STORE = 'STORE',
  MACHINE = 'MACHINE',
  COUNTER = 'COUNTER',
}

registerEnumType(AlertStore, {
  name: 'AlertStore',
  description: 'Which store of a company a STOCK_BELOW rule reads.',
  valuesConfig: {
    STORE: { description: "The company's store (GET /factory/inventory/{id})." },
    MACHINE: { description: 'The machine store (GET /factory/machine/{id}).' },
    COUNTER: { description: 'The counter (GET /factory/counter/{id}).' },
  },
});

/** Where an alert goes. */
export enum AlertTargetKind {
  DISCORD = 'DISCORD',
  WEBHOOK = 'WEBHOOK',
}

registerEnumType(AlertTargetKind, {
  name: 'AlertTargetKind',
  description: 'Where an alert is delivered.',
  valuesConfig: {
    DISCORD: {
      description: 'A Discord webhook (https://discord.com/api/webhooks/... ; plain http only to a loopback address).',
    },
    WEBHOOK: { description: "A Standard Webhooks endpoint, signed with the rule's own secret (whsec_...)." },
  },
});

/** What `createAlert` takes. */
@InputType({
  description:
    'A new alert rule: the character whose key watches, what it watches (the inputs of its kind) and where it goes.',
})
export class CreateAlertInput {
  /** The character. */
  @Field(() => String, { description: 'The vault character whose key watches.' })
  character!: string;

  /** The kind. */
  @Field(() => AlertKind, { description: 'What the rule watches.' })
  kind!: AlertKind;

  /** STOCK_BELOW: the company. */
  @Field(() => ID, { nullable: true, description: 'STOCK_BELOW: the company.' })
  factoryId?: string | null;

  /** STOCK_BELOW: the item. */
  @Field(() => String, { nullable: true, description: "STOCK_BELOW: the item's name." })
  item?: string | null;

  /** STOCK_BELOW: the store. */
  @Field(() => AlertStore, { nullable: true, description: 'STOCK_BELOW: which store.' })
  store?: AlertStore | null;

  /** STOCK_BELOW: the threshold. */
  @Field(() => Float, { nullable: true, description: 'STOCK_BELOW: the amount below which it fires.' })
  threshold?: number | null;

  /** TRANSACTION_ADDED: the account. */
  @Field(() => ID, { nullable: true, description: "TRANSACTION_ADDED: the company's bank account." })
  bankAccountId?: string | null;

  /** TRANSACTION_ADDED: the smallest amount. */
  @Field(() => Float, {
    nullable: true,
    description: 'TRANSACTION_ADDED: the smallest amount (absolute value) that fires.',
  })
  minAmount?: number | null;

  /** RENT_OVERDUE: the building. */
  @Field(() => ID, { nullable: true, description: 'RENT_OVERDUE: the building.' })
  buildingId?: string | null;

  /** RENT_OVERDUE: days. */
  @Field(() => Int, { nullable: true, description: 'RENT_OVERDUE: the number of days.' })
  days?: number | null;

  /** The target's kind. */
  @Field(() => AlertTargetKind, { description: 'Where it is delivered.' })
  target!: AlertTargetKind;

  /** The target URL. */
  @Field(() => String, { description: 'The target URL (https; plain http only to a loopback address).' })
  url!: string;
}

/** An alert rule. */
@ObjectType({
  description: 'An alert rule, kept in the vault (its URL sealed: a Discord webhook URL is a credential).',
})
export class Alert {
  /** Its id. */
  @Field(() => ID, { description: "The rule's id." })
  id!: string;

  /** The character. */
  @Field(() => String, { description: 'The vault character whose key watches.' })
  character!: string;

  /** The kind. */
  @Field(() => AlertKind, { description: 'What it watches.' })
  kind!: AlertKind;

  /** The URL, secret parts elided. */
  @Field(() => String, {
    description: "The target URL with any secret part (a Discord webhook's token) replaced by an ellipsis.",
  })
  url!: string;

  /** The target's kind. */
  @Field(() => AlertTargetKind, { description: 'Where it is delivered.' })
  target!: AlertTargetKind;

  /** The signing secret, once. */
  @Field(() => String, {
    nullable: true,
    description: 'For WEBHOOK targets: the signing secret, returned by createAlert only; null everywhere else.',
  })
  signingSecret!: string | null;

  /** When it was created. */
  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;

  /** When it last fired. */
  @Field(() => Date, { nullable: true, description: 'When it last fired, or null.' })
  lastFiredAt!: Date | null;
}
