/**
 * Which polled resources a rule reads: the very feeds of the subscriptions (the same
 * `resource` ids), so that a rule joins the poller a subscription or live query of the same
 * key already runs, and any number of rules over one resource costs one poll per interval.
 *
 * Beyond the poll, two reads that send nothing when there is nothing to gain: STOCK_BELOW
 * names the company from the key's company list when the cache holds it fresh (a look at the
 * cache only: else the alert names the id, as a read of the list would cost a request of the
 * key's budget for a name); TRANSACTION_ADDED reads the further pages of the account, as the
 * payment desk does (bank-accounts/transaction-window.ts), only when the newest page's
 * `totalTransactions` grew since the last poll by more than the page holds.
 */
import type { UpstreamSession } from '../economy';
import { NOT_CACHED } from '../economy';
import { transactionsFeed } from '../domains/bank-accounts/bank-account.subscription';
import { fetchAccountPage, transactionWindow, VISIBLE_WINDOW } from '../domains/bank-accounts/transaction-window';
import { fetchTenants } from '../domains/buildings/buildings.api';
import type { Tenant } from '../domains/buildings/building.type';
import { counterFeed } from '../domains/factories/counter.subscription';
import { fetchFactoryList } from '../domains/factories/factories.api';
import { InventoryKind, inventoryFeed } from '../domains/factories/inventory.subscription';
import { myAuctionsFeed } from '../domains/market/auction.subscription';
import type { Feed } from '../domains/feeds/feed';
import type { TransactionPage } from '../domains/shared/bank-account.type';
import { ENDPOINTS } from '../upstream/endpoints';
import type { OpenedAlert } from '../vault';
import { evaluateOutbid, evaluateRent, evaluateStock, evaluateTransactions } from './alert-conditions';
import type { Evaluation, RuleState, SeenAuction, SeenTenant, SeenTransfer } from './alert-conditions';

/** A building's tenants, polled for RENT_OVERDUE (`GET /building/tenants/{id}`; no subscription field reads it, so it yields no events). */
function tenantsFeed(buildingId: string): Feed<Tenant[], never> {
  return {
    kind: 'tenants',
    resource: `tenants/${buildingId}`,
    endpoint: ENDPOINTS.buildingTenants,
    poll: (session: UpstreamSession) => fetchTenants(session, buildingId),
    diff: () => [],
  };
}

/** One resource a rule reads, and how a poll of it is evaluated. */
export interface RuleSource {
  /** The feed (its `resource` is the poller's identity within a key). */
  readonly feed: Feed<unknown, unknown>;
  /**
   * What the rules over the resource evaluate, read once per poll from the polled state and
   * the rules' kept states (through the poll's session); without it, the polled state.
   */
  readonly read?: (polled: unknown, session: UpstreamSession, states: readonly RuleState[]) => Promise<unknown>;
  /** The rule's evaluation of one polled state (or what `read` made of it), at `now` (ms). */
  evaluate(state: RuleState, polled: unknown, now: number, session: UpstreamSession): Evaluation;
}

const as = <S>(feed: Feed<S, unknown>): Feed<unknown, unknown> => feed as Feed<unknown, unknown>;

/** A company's name from the key's company list when the cache holds it fresh, else null; never sends a request. */
function cachedFactoryName(session: UpstreamSession, factoryId: string): string | null {
  try {
    const list = session.peek((peeking) => fetchFactoryList(peeking), undefined);
    // A promise is a cached failure: no name.
    if (list instanceof Promise) {
      list.catch(() => undefined);
      return null;
    }
    return list.find((factory) => factory.id === factoryId)?.name ?? null;
  } catch (error) {
    if (error === NOT_CACHED) return null;
    throw error;
  }
}

/** The transactions a TRANSACTION_ADDED rule evaluates: the window of one poll, and the account's total then. */
interface TransactionsRead {
  readonly transactions: SeenTransfer[];
  readonly totalTransactions: number;
  /** Transactions that arrived since the poll before (0 at a rule's first poll). */
  readonly arrived: number;
}

/**
 * The window of a poll of an account (see the module comment), from the rule furthest behind
 * (the smallest kept total): the further pages are read once for every rule over the account.
 */
async function readTransactions(
  bankAccountId: string,
  page: TransactionPage,
  session: UpstreamSession,
  states: readonly RuleState[],
): Promise<TransactionsRead> {
  const totals = states.flatMap((state) => (state.total === undefined ? [] : [state.total]));
  const { transactions, arrived } = await transactionWindow(
    page,
    totals.length === 0 ? null : Math.min(...totals),
    async (skip) => (await fetchAccountPage(session, bankAccountId, skip)).page,
  );
  return { transactions, totalTransactions: page.totalTransactions, arrived };
}

/** The resources a rule reads (two for OUTBID: the import and the export auctions). */
export function ruleSources(rule: Pick<OpenedAlert, 'kind' | 'params' | 'createdAt'>): RuleSource[] {
  const params = rule.params;
  switch (rule.kind) {
    case 'STOCK_BELOW': {
      const factoryId = params.factoryId ?? '';
      const feed =
        params.store === 'COUNTER'
          ? as(counterFeed(factoryId))
          : as(inventoryFeed(factoryId, params.store === 'MACHINE' ? InventoryKind.MACHINE : InventoryKind.STORE));
      return [
        {
          feed,
          evaluate: (state, polled, _now, session) =>
            evaluateStock(params, state, (polled as { items: Array<{ item: string; amount: number }> }).items, () =>
              cachedFactoryName(session, factoryId),
            ),
        },
      ];
    }
    case 'TRANSACTION_ADDED': {
      const bankAccountId = params.bankAccountId ?? '';
      return [
        {
          feed: as(transactionsFeed(bankAccountId)),
          read: (polled, session, states) =>
            readTransactions(bankAccountId, polled as TransactionPage, session, states),
          evaluate: (state, polled) => {
            const read = polled as TransactionsRead;
            const evaluation = evaluateTransactions(params, state, read.transactions, rule.createdAt);
            return {
              ...evaluation,
              state: { ...evaluation.state, total: read.totalTransactions },
              ...(read.arrived > VISIBLE_WINDOW
                ? {
                    problem: `more than ${VISIBLE_WINDOW} transactions arrived between two polls (the upstream shows only the newest ${VISIBLE_WINDOW}): some were missed`,
                  }
                : {}),
            };
          },
        },
      ];
    }
    case 'OUTBID':
      return (['import', 'export'] as const).map((which) => ({
        feed: as(myAuctionsFeed(which)),
        evaluate: (state: RuleState, polled: unknown) =>
          evaluateOutbid(state, polled as SeenAuction[], which === 'import' ? 'IMPORT' : 'EXPORT'),
      }));
    case 'RENT_OVERDUE':
      return [
        {
          feed: as(tenantsFeed(params.buildingId ?? '')),
          evaluate: (state, polled, now) => evaluateRent(params, state, polled as SeenTenant[], now),
        },
      ];
    default:
      return [];
  }
}
