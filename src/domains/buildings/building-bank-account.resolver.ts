import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../../context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { TRANSACTIONS_LIMIT_DESCRIPTION, TRANSACTIONS_SKIP_DESCRIPTION, TransactionPage } from '../shared/bank-account.type';
import { BuildingBankAccount } from './building.type';

/** Resolves `BuildingBankAccount.transactions` from the building transactions endpoint. */
@Resolver(() => BuildingBankAccount)
export class BuildingBankAccountResolver {
  @FieldResolver(() => TransactionPage, {
    nullable: true,
    description: `A page of the account's transactions. ${describeSource(ENDPOINTS.buildingTransactions)} Bounds: limit 1..25, skip 0..200.`,
  })
  transactions(
    @Root() account: BuildingBankAccount,
    @Arg('limit', () => Int, { defaultValue: 10, description: TRANSACTIONS_LIMIT_DESCRIPTION }) limit: number,
    @Arg('skip', () => Int, { defaultValue: 0, description: TRANSACTIONS_SKIP_DESCRIPTION }) skip: number,
    @Ctx() ctx: GatewayContext,
  ): Promise<TransactionPage> {
    return ctx.loaders.buildings.transactions.load({ id: account.id, limit, skip });
  }
}
