/**
 * What each subscription polls and how it finds changes: one {@link Feed} per
 * (upstream resource, arguments). A feed fetches through the domain `*.api.ts`
 * functions (so through the same cache, coalescing and budget as queries) and diffs
 * two successive results with the pure functions of `diff.ts`.
 */
import { fetchBuildingTransactions, fetchRooms } from '../domains/buildings/buildings.api';
import type { Room } from '../domains/buildings/building.type';
import { RoomChangeKind } from '../domains/buildings/room-change.type';
import type { RoomChange } from '../domains/buildings/room-change.type';
import type { Counter } from '../domains/factories/counter.type';
import { fetchCounter, fetchFactoryList, fetchFactoryTransactions, fetchInventory, fetchMachineInventory, fetchOption } from '../domains/factories/factories.api';
import { InventoryKind } from '../domains/factories/factory-change.type';
import type { CounterChange, FactoryOptionChange, InventoryChange } from '../domains/factories/factory-change.type';
import type { FactoryOption } from '../domains/factories/factory-option.type';
import type { Inventory } from '../domains/factories/inventory.type';
import { AuctionChangeKind } from '../domains/market/auction-change.type';
import type { AuctionChange } from '../domains/market/auction-change.type';
import { fetchMyExportAuctions, fetchMyImportAuctions } from '../domains/market/market.api';
import type { TransactionPage } from '../domains/shared/bank-account.type';
import type { TransactionAdded } from '../domains/shared/transaction-added.type';
import { GatewayError, UpstreamError } from '../errors/gateway-error';
import { ENDPOINTS } from '../upstream/endpoints';
import type { Endpoint } from '../upstream/endpoints';
import type { UpstreamSession } from '../economy';
import { diffAuctions, diffCounter, diffInventory, diffRooms, optionChanged, TransactionLedger } from './diff';
import type { MyAuctionValue } from './diff';

/** The resource kinds, as `/metrics` labels them (never an id or a key). */
export type FeedKind = 'inventory' | 'machineInventory' | 'counter' | 'transactions' | 'myImportAuctions' | 'myExportAuctions' | 'rooms' | 'option' | 'siteDocument';

/**
 * One polled upstream resource of one key. The poller keeps the last result and
 * calls {@link diff} once per poll; every subscriber gets the events it returns.
 */
export interface Feed<S, E> {
  /** Label in `/metrics`. */
  readonly kind: FeedKind;
  /** Identity within a key, e.g. `counter/<factoryId>`: one poller per key and resource. */
  readonly resource: string;
  /** The endpoint whose freshness window is the polling interval. */
  readonly endpoint: Endpoint;
  /**
   * Fetches the current state. `first` is true for the poll that starts the
   * subscription, which also checks that the key owns what it names.
   *
   * @throws UpstreamError or GatewayError, as the query fields do.
   */
  poll(session: UpstreamSession, first: boolean): Promise<S>;
  /** The events between two successive states, computed once per poll. */
  diff(previous: S, next: S, observedAt: Date): E[];
  /** Takes a state another replica polled (its poller leads), without producing events. */
  adopt?(state: S): void;
}

/** `inventoryChanged(factoryId, store)`: `GET /factory/inventory/{id}` or `GET /factory/machine/{id}`. */
export function inventoryFeed(factoryId: string, store: InventoryKind): Feed<Inventory, InventoryChange> {
  const machine = store === InventoryKind.MACHINE;
  return {
    kind: machine ? 'machineInventory' : 'inventory',
    resource: `${machine ? 'machine' : 'inventory'}/${factoryId}`,
    endpoint: machine ? ENDPOINTS.factoryMachine : ENDPOINTS.factoryInventory,
    poll: (session) => (machine ? fetchMachineInventory(session, factoryId) : fetchInventory(session, factoryId)),
    diff(previous, next, observedAt) {
      const changes = diffInventory(previous.items, next.items);
      return changes.length === 0 ? [] : [{ factoryId, store, observedAt, changes, inventory: next }];
    },
  };
}

/** `counterChanged(factoryId)`: `GET /factory/counter/{id}`. */
export function counterFeed(factoryId: string): Feed<Counter, CounterChange> {
  return {
    kind: 'counter',
    resource: `counter/${factoryId}`,
    endpoint: ENDPOINTS.factoryCounter,
    poll: (session) => fetchCounter(session, factoryId),
    diff(previous, next, observedAt) {
      const changes = diffCounter(previous.items, next.items);
      return changes.length === 0 ? [] : [{ factoryId, observedAt, changes, counter: next }];
    },
  };
}

/** The newest page the upstream allows (limit 25, skip 0). */
const NEWEST_PAGE = { limit: 25, skip: 0 } as const;

/**
 * `transactionAdded(bankAccountId)`: the account's newest page, from
 * `GET /factory/transactions/{bankId}/25/0`, or from the building endpoint when the
 * company one does not know the account (decided once, on the first poll).
 */
export function transactionsFeed(bankAccountId: string): Feed<TransactionPage, TransactionAdded> {
  const ledger = new TransactionLedger();
  let owner: 'factory' | 'building' = 'factory';
  let baselined = false;
  const fetch = (session: UpstreamSession, which: 'factory' | 'building'): Promise<TransactionPage> =>
    which === 'factory' ? fetchFactoryTransactions(session, { id: bankAccountId, ...NEWEST_PAGE }) : fetchBuildingTransactions(session, { id: bankAccountId, ...NEWEST_PAGE });
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
      let page: TransactionPage;
      try {
        page = await fetch(session, 'factory');
      } catch (factoryError) {
        if (!isDefinitive(factoryError)) throw factoryError;
        try {
          page = await fetch(session, 'building');
          owner = 'building';
        } catch (buildingError) {
          // The company endpoint's 404 means "not a company account": the building's answer counts.
          throw factoryError instanceof UpstreamError && factoryError.code === 'NOT_FOUND' ? buildingError : factoryError;
        }
      }
      observe(page);
      return page;
    },
    diff(_previous, next, observedAt) {
      return ledger.added(next).map((transaction) => ({ bankAccountId, observedAt, transaction }));
    },
    adopt: observe,
  };
}

/** `myAuctionChanged`, import half (`GET /market/my/auctions/import`) or export half (`…/export`). */
export function myAuctionsFeed(which: 'import' | 'export'): Feed<MyAuctionValue[], AuctionChange> {
  return {
    kind: which === 'import' ? 'myImportAuctions' : 'myExportAuctions',
    resource: `myAuctions/${which}`,
    endpoint: which === 'import' ? ENDPOINTS.myImportAuctions : ENDPOINTS.myExportAuctions,
    poll: (session) => (which === 'import' ? fetchMyImportAuctions(session) : fetchMyExportAuctions(session)),
    diff: (previous, next, observedAt) =>
      diffAuctions(previous, next).map((change) => ({ kind: AuctionChangeKind[change.kind], observedAt, auction: change.auction, previousBidAmount: change.previousBidAmount })),
  };
}

/** `roomChanged(buildingId)`: `GET /building/rooms/{id}`. */
export function roomsFeed(buildingId: string): Feed<Room[], RoomChange> {
  return {
    kind: 'rooms',
    resource: `rooms/${buildingId}`,
    endpoint: ENDPOINTS.buildingRooms,
    poll: (session) => fetchRooms(session, buildingId),
    diff: (previous, next, observedAt) =>
      diffRooms(previous, next).map((change) => ({ buildingId, observedAt, kind: RoomChangeKind[change.kind], room: change.room, previousRent: change.previousRent })),
  };
}

/**
 * `factoryOptionChanged(factoryId, slot)`: `GET /factory/options/{id}/{slot}`. An unset
 * slot answers 404 like a company the key does not own, so the first poll also reads
 * the company list (usually cached) to tell the two apart.
 */
export function optionFeed(factoryId: string, slot: number): Feed<FactoryOption | null, FactoryOptionChange> {
  return {
    kind: 'option',
    resource: `option/${factoryId}/${slot}`,
    endpoint: ENDPOINTS.factoryOption,
    async poll(session, first) {
      if (first) await checkOwned(session, factoryId);
      return fetchOption(session, { id: factoryId, slot });
    },
    diff: (previous, next, observedAt) => (optionChanged(previous, next) ? [{ factoryId, slot, observedAt, option: next }] : []),
  };
}

/**
 * The first poll of a company's option slots: `NOT_FOUND` unless the key's character owns
 * the company (the company list, usually cached), since an unset slot and a company of
 * someone else both answer 404.
 *
 * @throws GatewayError `NOT_FOUND`, and the list's own errors
 */
export async function checkOwned(session: UpstreamSession, factoryId: string): Promise<void> {
  const owned = await fetchFactoryList(session);
  if (!owned.some((factory) => factory.id === factoryId)) {
    throw new GatewayError('NOT_FOUND', `The key's character owns no company ${factoryId} (GET /factory/list/).`, {
      upstream: { status: null, endpoint: ENDPOINTS.factoryList.route, message: 'company not in the list' },
    });
  }
}

/**
 * True for an answer that polling again will not change: a 400 (scope), 401 (key,
 * premium) or 404 (not owned). Such an error ends the subscription; any other is
 * retried.
 */
export function isDefinitive(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  return error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN' || error.code === 'UPSTREAM_BAD_REQUEST' || error.code === 'UNAUTHENTICATED';
}
