import { Field, ID, ObjectType } from 'type-graphql';
import { BankTransaction } from './bank-account.type';

/** Event of `transactionAdded`. */
@ObjectType({ description: 'A transaction that appeared on a bank account.' })
export class TransactionAdded {
  @Field(() => ID, { description: 'The bank account (of a company or a building).' })
  bankAccountId!: string;

  @Field(() => Date, { description: 'When the gateway saw the transaction (the time of the poll that found it).' })
  observedAt!: Date;

  @Field(() => BankTransaction, { description: 'The new transaction.' })
  transaction!: BankTransaction;
}
