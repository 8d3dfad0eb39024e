/**
 * Which polled resources a rule reads: the very feeds of the subscriptions (the same
 * `resource` ids), so that a rule joins the poller a subscription or live query of the same
 * key already runs, and any number of rules over one resource costs one poll per interval.
 */
import type { UpstreamSession } from '../economy';
import { transactionsFeed } from '../domains/bank-accounts/bank-account.subscription';
import { fetchTenants } from '../domains/buildings/buildings.api';
import type { Tenant } from '../domains/buildings/building.type';
import { counterFeed } from '../domains/factories/counter.subscription';
import { InventoryKind, inventoryFeed } from '../domains/factories/inventory.subscription';
import { myAuctionsFeed } from '../domains/market/auction.subscription';
import type { Feed } from '../domains/feeds/feed';
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
  /** The rule's evaluation of one polled state, at `now` (ms). */
  evaluate(state: RuleState, polled: unknown, now: number): Evaluation;
}

const as = <S>(feed: Feed<S, unknown>): Feed<unknown, unknown> => feed as Feed<unknown, unknown>;

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
          evaluate: (state, polled) =>
            evaluateStock(params, state, (polled as { items: Array<{ item: string; amount: number }> }).items),
        },
      ];
    }
    case 'TRANSACTION_ADDED':
      return [
        {
          feed: as(transactionsFeed(params.bankAccountId ?? '')),
          evaluate: (state, polled) =>
            evaluateTransactions(
              params,
              state,
              (polled as { transactions: SeenTransfer[] }).transactions,
              rule.createdAt,
            ),
        },
      ];
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
