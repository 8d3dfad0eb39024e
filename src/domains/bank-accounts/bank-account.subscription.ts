/**
 * `transactionAdded(bankAccountId)`: new transactions of a company's or a building's
 * bank account, polled from the newest page of its transactions. One subscribable
 * resource in one file: the event type, the feed (fetch, diff by {@link TransactionLedger},
 * interval class) and the field. A domain of its own: it reads both owners' transaction
 * endpoints (companies' and buildings'), which import nothing of it.
 */
import { Arg, Ctx, Field, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import type { UpstreamSession } from '../../economy';
import { describePolling } from '../feeds/describe';
import { eventOf, openFeeds } from '../feeds/feed';
import type { Feed, FeedMessage } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import { fetchBuildingTransactions } from '../buildings/buildings.api';
import { fetchFactoryTransactions } from '../factories/factories.api';
import type { SubscriptionContext } from '../gateway-context';
import { BankTransaction } from '../shared/bank-account.type';
import type { TransactionPage } from '../shared/bank-account.type';
import { TransactionLedger } from './transaction-ledger';
import { fetchAccountPage, PAGE } from './transaction-window';
import type { AccountOwner } from './transaction-window';
import { PerCharacter } from '../../field-rules/per-character';
import type { MaybePromise } from '../shared/maybe-promise';

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

/** The newest page the upstream allows (limit 25, skip 0). */
const NEWEST_PAGE = { limit: PAGE, skip: 0 } as const;

/**
 * The feed of `transactionAdded(bankAccountId)`: the account's newest page, from
 * `GET /factory/transactions/{bankId}/25/0`, or from the building endpoint when the
 * company one does not know the account (decided once, on the first poll).
 *
 * @throws UpstreamError from the first poll: the building endpoint's error when the company one answered 404.
 */
export function transactionsFeed(bankAccountId: string): Feed<TransactionPage, TransactionAdded> {
  const ledger = new TransactionLedger();
  let owner: AccountOwner = 'factory';
  let baselined = false;
  const fetch = (session: UpstreamSession, which: 'factory' | 'building'): MaybePromise<TransactionPage> =>
    which === 'factory'
      ? fetchFactoryTransactions(session, { id: bankAccountId, ...NEWEST_PAGE })
      : fetchBuildingTransactions(session, { id: bankAccountId, ...NEWEST_PAGE });
  const observe = (page: TransactionPage): void => {
    if (baselined) {
      ledger.added(page);
    } else {
      ledger.baseline(page);
      baselined = true;
    }
  };
  return {
    kind: 'transactions',
    resource: `transactions/${bankAccountId}`,
    endpoint: ENDPOINTS.factoryTransactions,
    async poll(session, first) {
      if (!first) return fetch(session, owner);
      const newest = await fetchAccountPage(session, bankAccountId, NEWEST_PAGE.skip);
      const page = newest.page;
      owner = newest.owner;
      observe(page);
      return page;
    },
    diff(_previous, next, observedAt) {
      return ledger.added(next).map((transaction) => ({ bankAccountId, observedAt, transaction }));
    },
    adopt: observe,
  };
}

/** `transactionAdded`: new transactions of a company's or a building's bank account. */
@Resolver()
export class BankAccountSubscriptionResolver {
  /** One event per new transaction, oldest first; never the same transaction twice. */
  @PerCharacter({ owner: 'bankAccounts', arg: 'bankAccountId' })
  @Subscription(() => TransactionAdded, {
    description: `Transactions that appeared on one bank account (a company's or a building's), oldest first, one event each. Polls the newest page (limit 25): ${describePolling(ENDPOINTS.factoryTransactions, ENDPOINTS.buildingTransactions)} The company endpoint is tried first, the building one when it does not know the account. Transactions have no id: the gateway recognises those it saw by content and position and never sends one twice. An access token over several characters polls with the key of the character whose company or building holds the account (found from each key's companies' and buildings' accounts, usually cached).`,
    subscribe: ({ args, context }) => {
      const { bankAccountId } = args as { bankAccountId: string };
      return openFeeds(context as SubscriptionContext, [transactionsFeed(bankAccountId)]);
    },
  })
  transactionAdded(
    @Root() message: FeedMessage<TransactionAdded>,
    @Arg('bankAccountId', () => ID, {
      description:
        "The bank account id (BankAccount.id of a company or building account owned by the key's character, else NOT_FOUND).",
    })
    _bankAccountId: string,
    @Ctx() ctx: SubscriptionContext,
  ): TransactionAdded {
    return eventOf(message, ctx);
  }
}
