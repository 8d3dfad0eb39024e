import { Args, ArgsType, Field, Float, ID, Int, InterfaceType, ObjectType } from 'type-graphql';
import { ArgumentBounds, BOUNDS, boundsText, describeBounds, intRule } from '../../field-rules/bounds';
import { UpstreamCost } from '../../field-rules/cost';

/** One bank transaction of a company or building account. */
@ObjectType({ description: 'One bank transaction. Source: the transactions endpoints of companies and buildings.' })
export class BankTransaction {
  @Field(() => String, { nullable: true, description: 'VBAN of the sending account, or null (e.g. system bookings).' })
  senderVban!: string | null;

  @Field(() => String, { nullable: true, description: 'VBAN of the receiving account, or null.' })
  receiverVban!: string | null;

  @Field(() => String, { nullable: true, description: 'Free-text reference of the booking, or null.' })
  reference!: string | null;

  @Field(() => Float, {
    description: 'Amount of money (currency unit not documented upstream); the sign as the upstream sends it.',
  })
  amount!: number;

  @Field(() => Date, { description: 'When the transaction was booked (ISO 8601).' })
  timestamp!: Date;
}

/** One page of an account's transactions. */
@ObjectType({ description: "One page of an account's transactions, as selected by limit and skip." })
export class TransactionPage {
  @Field(() => Int, { description: 'Number of transactions of the account in total (not only on this page).' })
  totalTransactions!: number;

  @Field(() => [BankTransaction], {
    description: 'The transactions of this page (ordering as the upstream returns it).',
  })
  transactions!: BankTransaction[];
}

/** Bounds of a transactions page (company and building accounts alike), declared once for every `transactions` field. */
export const TRANSACTION_PAGE_BOUNDS = Object.freeze({
  limit: intRule(BOUNDS.transactionsLimit),
  skip: intRule(BOUNDS.transactionsSkip),
});

/** The arguments of every `transactions` field: one page of an account's transactions. */
@ArgsType()
export class TransactionPageArgs {
  @Field(() => Int, {
    defaultValue: 10,
    description: `Page size; ${boundsText('limit', TRANSACTION_PAGE_BOUNDS.limit)}, default 10. Out of bounds: BAD_USER_INPUT before any upstream request.`,
  })
  limit!: number;

  @Field(() => Int, {
    defaultValue: 0,
    description: `Transactions to skip (the upstream's offset); ${boundsText('skip', TRANSACTION_PAGE_BOUNDS.skip)}, default 0. Out of bounds: BAD_USER_INPUT before any upstream request.`,
  })
  skip!: number;
}

/** A bank account of a company or a building. */
@InterfaceType({
  description: 'A bank account of a company (FactoryBankAccount) or of a building (BuildingBankAccount).',
})
export abstract class BankAccount {
  @Field(() => ID, { description: 'Opaque bank account identifier (the id its transactions are read by).' })
  id!: string;

  @Field(() => String, {
    description: "The account's VBAN, always as a string (the upstream sometimes sends a number).",
  })
  vban!: string;

  @Field(() => Float, { description: 'Current balance (currency unit not documented upstream).' })
  balance!: number;

  @Field(() => String, { nullable: true, description: "The owner's note on the account, or null." })
  note!: string | null;

  /** Declared here for the interface; each implementation resolves it from its own endpoint. */
  @UpstreamCost({ requests: 1 })
  @ArgumentBounds(TRANSACTION_PAGE_BOUNDS)
  @Field(() => TransactionPage, {
    nullable: true,
    description: `A page of the account's transactions. Premium only. ${describeBounds(TRANSACTION_PAGE_BOUNDS)}`,
  })
  transactions(@Args(() => TransactionPageArgs) _page: TransactionPageArgs): TransactionPage | null {
    throw new Error('BankAccount.transactions is resolved by the implementing type');
  }
}
