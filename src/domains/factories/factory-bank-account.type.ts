import { ObjectType } from 'type-graphql';
import { BankAccount } from '../shared/bank-account.type';

/** A bank account of a company; `transactions` is resolved by `FactoryBankAccountResolver`. */
@ObjectType({
  implements: BankAccount,
  description: 'A bank account of a company. Source: GET /factory/bankaccounts/{id} (premium only).',
})
export class FactoryBankAccount extends BankAccount {}
