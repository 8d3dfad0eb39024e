import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import { ENDPOINTS } from '../../upstream/endpoints';
import { describePolling } from '../../subscriptions/describe';
import { transactionsFeed } from '../../subscriptions/feeds';
import type { FeedMessage } from '../../subscriptions/poll-hub';
import { eventOf, openFeeds } from '../../subscriptions/subscription-service';
import type { SubscriptionContext } from '../../subscriptions/subscription-service';
import { TransactionAdded } from './transaction-added.type';

/** `transactionAdded`: new transactions of a company's or a building's bank account. */
@Resolver()
export class BankAccountSubscriptionResolver {
  @Subscription(() => TransactionAdded, {
    description: `Transactions that appeared on one bank account (a company's or a building's), oldest first, one event each. Polls the newest page (limit 25): ${describePolling(ENDPOINTS.factoryTransactions, ENDPOINTS.buildingTransactions)} The company endpoint is tried first, the building one when it does not know the account. Transactions have no id: the gateway recognises those it saw by content and position and never sends one twice.`,
    subscribe: ({ args, context }) => openFeeds(context, [transactionsFeed((args as { bankAccountId: string }).bankAccountId)]),
  })
  transactionAdded(
    @Root() message: FeedMessage<TransactionAdded>,
    @Arg('bankAccountId', () => ID, { description: 'The bank account id (BankAccount.id of a company or building account owned by the key\'s character, else NOT_FOUND).' }) _bankAccountId: string,
    @Ctx() ctx: SubscriptionContext,
  ): TransactionAdded {
    return eventOf(message, ctx);
  }
}
