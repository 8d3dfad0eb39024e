import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GatewayContext } from '../gateway-context';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { TRANSACTION_PAGE_BOUNDS, TransactionPage, TransactionPageArgs } from '../shared/bank-account.type';
import { FactoryBankAccount } from './factory-bank-account.type';
import { ArgumentBounds, describeBounds } from '../../field-rules/bounds';
import { UpstreamCost } from '../../field-rules/cost';
import type { MaybePromise } from '../shared/maybe-promise';

/** Resolves `FactoryBankAccount.transactions` from the company transactions endpoint. */
@Resolver(() => FactoryBankAccount)
export class FactoryBankAccountResolver {
  /**
   * `FactoryBankAccount.transactions`: one page of the account's transactions (`GET /factory/transactions/{bankId}/{limit}/{skip}`, one request per distinct page in an operation).
   * Bounds (limit 1..25, skip 0..200) are checked before execution; an upstream failure nulls the field (UPSTREAM_*, FORBIDDEN, NOT_FOUND).
   */
  @UpstreamCost({ requests: 1 })
  @ArgumentBounds(TRANSACTION_PAGE_BOUNDS)
  @FieldResolver(() => TransactionPage, {
    nullable: true,
    description: `A page of the account's transactions. ${describeSource(ENDPOINTS.factoryTransactions)} ${describeBounds(TRANSACTION_PAGE_BOUNDS)}`,
  })
  transactions(
    @Root() account: FactoryBankAccount,
    @Args(() => TransactionPageArgs) { limit, skip }: TransactionPageArgs,
    @Ctx() ctx: GatewayContext,
  ): MaybePromise<TransactionPage> {
    return ctx.loaders.factories.transactions.loadNow({ id: account.id, limit, skip });
  }
}
