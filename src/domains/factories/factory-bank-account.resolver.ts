import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../../context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { TRANSACTIONS_LIMIT_DESCRIPTION, TRANSACTIONS_SKIP_DESCRIPTION, TransactionPage } from '../shared/bank-account.type';
import { FactoryBankAccount } from './factory-bank-account.type';

/** Resolves `FactoryBankAccount.transactions` from the company transactions endpoint. */
@Resolver(() => FactoryBankAccount)
export class FactoryBankAccountResolver {
  @FieldResolver(() => TransactionPage, {
    nullable: true,
    description: `A page of the account's transactions. ${describeSource(ENDPOINTS.factoryTransactions)} Bounds: limit 1..25, skip 0..200.`,
  })
  transactions(
    @Root() account: FactoryBankAccount,
    @Arg('limit', () => Int, { defaultValue: 10, description: TRANSACTIONS_LIMIT_DESCRIPTION }) limit: number,
    @Arg('skip', () => Int, { defaultValue: 0, description: TRANSACTIONS_SKIP_DESCRIPTION }) skip: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<TransactionPage> {
    return ctx.loaders.factories.transactions.load({ id: account.id, limit, skip });
  }
}
