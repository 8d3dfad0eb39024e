/**
 * The window of an account's transactions one poll can see: the newest page and, when the
 * page shows that more arrived since the last poll than it holds, the further pages. What
 * the payment desk and the TRANSACTION_ADDED alert rules read; a poll after which 25 or fewer
 * transactions arrived reads the newest page only.
 */
import { UpstreamError } from '../../errors/gateway-error';
import type { UpstreamSession } from '../../economy';
import { isDefinitive } from '../feeds/feed';
import { fetchBuildingTransactions } from '../buildings/buildings.api';
import { fetchFactoryTransactions } from '../factories/factories.api';
import type { BankTransaction, TransactionPage } from '../shared/bank-account.type';

/** Transactions per page the upstream allows. */
export const PAGE = 25;
/** The largest skip the upstream allows. */
export const MAX_SKIP = 200;
/** Transactions one poll can see at most: the newest page and the pages up to skip 200. */
export const VISIBLE_WINDOW = PAGE + MAX_SKIP;

/** Whose endpoint an account's transactions are read from. */
export type AccountOwner = 'factory' | 'building';

/**
 * One page (limit 25) of an account's transactions at `skip`: from the company endpoint, or
 * from the building one when the company one does not know the account (a definitive error).
 *
 * @returns the page and the endpoint that answered
 * @throws UpstreamError the building endpoint's error when the company one answered 404, else the company one's
 */
export async function fetchAccountPage(
  session: UpstreamSession,
  bankAccountId: string,
  skip: number,
): Promise<{ page: TransactionPage; owner: AccountOwner }> {
  const key = { id: bankAccountId, limit: PAGE, skip };
  try {
    return { page: await fetchFactoryTransactions(session, key), owner: 'factory' };
  } catch (factoryError) {
    if (!isDefinitive(factoryError)) throw factoryError;
    try {
      return { page: await fetchBuildingTransactions(session, key), owner: 'building' };
    } catch (buildingError) {
      // The company endpoint's 404 means "not a company account": the building's answer counts.
      throw factoryError instanceof UpstreamError && factoryError.code === 'NOT_FOUND' ? buildingError : factoryError;
    }
  }
}

/**
 * The transactions a poll can see: `page` (the newest) and, when its `totalTransactions`
 * grew since `lastTotal` by more than it holds, the pages after it (`…/25/25`, `…/25/50`, …
 * up to skip 200, stopping at a short page), read with `further`. Nothing more is read
 * without a last total (a first poll) or without `further`.
 *
 * @returns the transactions, and how many arrived since `lastTotal` (0 without one; more than
 *   {@link VISIBLE_WINDOW}: some could not be seen)
 */
export async function transactionWindow(
  page: TransactionPage,
  lastTotal: number | null,
  further: ((skip: number) => Promise<TransactionPage>) | null,
): Promise<{ transactions: BankTransaction[]; arrived: number }> {
  const transactions = [...page.transactions];
  const arrived = lastTotal === null ? 0 : page.totalTransactions - lastTotal;
  if (further && arrived > page.transactions.length) {
    for (let skip = PAGE; skip <= MAX_SKIP && skip < arrived; skip += PAGE) {
      const more = await further(skip);
      transactions.push(...more.transactions);
      if (more.transactions.length < PAGE) break;
    }
  }
  return { transactions, arrived };
}
