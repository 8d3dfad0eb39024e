/**
 * The company endpoints, one function each: request through the operation's
 * {@link UpstreamSession}, then map. Errors are `UpstreamError`s (see the client);
 * an empty store or counter (404 "… is empty") is an empty result, and an unset
 * option slot (404) is null.
 */
import { GatewayError } from '../../errors/gateway-error';
import { ENDPOINTS } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../economy';
import { mapTransactionPage } from '../shared/bank-account.mapper';
import type { TransactionPage } from '../shared/bank-account.type';
import type { PageKey } from '../shared/loader';
import type { UpstreamFailure } from '../../economy';
import { fetchMapped } from '../shared/fetch-mapped';
import type { MaybePromise } from '../shared/maybe-promise';
import { mapResponse } from '../shared/narrow';
import { isEmptyStoreError, isNotFoundError } from '../shared/upstream-errors';
import type { BuyLogEntry } from './buy-log-entry.type';
import type { Counter } from './counter.type';
import type { FactoryBankAccount } from './factory-bank-account.type';
import type { FactoryOption } from './factory-option.type';
import type { Factory } from './factory.type';
import type { Inventory } from './inventory.type';
import {
  emptyInventory,
  mapBuyLog,
  mapCounter,
  mapFactoryBankAccounts,
  mapFactoryList,
  mapInventory,
  mapOption,
  mapProductions,
  mapUpdateMessage,
  mapVehicles,
} from './factory.mapper';
import type { Production } from './production.type';
import type { Vehicle } from './vehicle.type';

/** `GET /factory/list/`: all companies of the character. */
export function fetchFactoryList(session: UpstreamSession): MaybePromise<Factory[]> {
  return fetchMapped(session, ENDPOINTS.factoryList, undefined, mapFactoryList);
}

/**
 * Checks with the company list (usually cached) that the key's character owns a company:
 * for the first poll of option slots, where an unset slot and someone else's company both
 * answer 404.
 *
 * @throws GatewayError `NOT_FOUND` when it does not, and the list's own errors
 */
export async function checkFactoryOwned(session: UpstreamSession, factoryId: string): Promise<void> {
  const owned = await fetchFactoryList(session);
  if (!owned.some((factory) => factory.id === factoryId)) {
    throw new GatewayError('NOT_FOUND', `The key's character owns no company ${factoryId} (GET /factory/list/).`, {
      upstream: { status: null, endpoint: ENDPOINTS.factoryList.route, message: 'company not in the list' },
    });
  }
}

const emptyStore = (failure: UpstreamFailure): Inventory | undefined =>
  isEmptyStoreError(failure) ? emptyInventory() : undefined;

/** `GET /factory/inventory/{id}`: the normal store; empty when the upstream says so. */
export function fetchInventory(session: UpstreamSession, id: string): MaybePromise<Inventory> {
  return fetchMapped(session, ENDPOINTS.factoryInventory, { id }, mapInventory, emptyStore);
}

/** `GET /factory/machine/{id}`: all machine stores; empty when the upstream says so. */
export function fetchMachineInventory(session: UpstreamSession, id: string): MaybePromise<Inventory> {
  return fetchMapped(session, ENDPOINTS.factoryMachine, { id }, mapInventory, emptyStore);
}

/** `GET /factory/counter/{id}`: the shop shelf; empty when the upstream says "Counter is empty". */
export function fetchCounter(session: UpstreamSession, id: string): MaybePromise<Counter> {
  return fetchMapped(session, ENDPOINTS.factoryCounter, { id }, mapCounter, (failure) =>
    isEmptyStoreError(failure) ? { totalWeight: 0, items: [] } : undefined,
  );
}

/** `GET /factory/productions/{id}` (premium only). */
export function fetchProductions(session: UpstreamSession, id: string): MaybePromise<Production[]> {
  return fetchMapped(session, ENDPOINTS.factoryProductions, { id }, mapProductions);
}

/** `GET /factory/bankaccounts/{id}` (premium only). */
export function fetchFactoryBankAccounts(session: UpstreamSession, id: string): MaybePromise<FactoryBankAccount[]> {
  return fetchMapped(session, ENDPOINTS.factoryBankAccounts, { id }, mapFactoryBankAccounts);
}

/** `GET /factory/transactions/{bankId}/{limit}/{skip}` (premium only); `key.id` is the account id. */
export function fetchFactoryTransactions(session: UpstreamSession, key: PageKey): MaybePromise<TransactionPage> {
  return fetchMapped(
    session,
    ENDPOINTS.factoryTransactions,
    { bankId: key.id, limit: key.limit, skip: key.skip },
    mapTransactionPage,
  );
}

/** `GET /factory/vehicles/{id}`: vehicles of a dealership; empty for other companies. */
export function fetchVehicles(session: UpstreamSession, id: string): MaybePromise<Vehicle[]> {
  return fetchMapped(session, ENDPOINTS.factoryVehicles, { id }, mapVehicles);
}

/** `GET /factory/buyLog/{id}/{limit}/{skip}`. */
export function fetchBuyLog(session: UpstreamSession, key: PageKey): MaybePromise<BuyLogEntry[]> {
  return fetchMapped(session, ENDPOINTS.factoryBuyLog, { id: key.id, limit: key.limit, skip: key.skip }, mapBuyLog);
}

/**
 * `GET /factory/options/{id}/{slot}`: the slot, or null when it was never set (404) or was
 * cleared. `fresh` skips a fresh cached answer (a check just before a conditional write).
 */
export function fetchOption(
  session: UpstreamSession,
  key: { id: string; slot: number },
  fresh = false,
): MaybePromise<FactoryOption | null> {
  // The company is known to be owned when this runs, so a 404 means the slot is unset.
  return fetchMapped<FactoryOption | null>(
    session,
    ENDPOINTS.factoryOption,
    { id: key.id, slot: key.slot },
    (body) => mapOption(body, key.slot),
    (failure) => (isNotFoundError(failure) ? null : undefined),
    fresh,
  );
}

/** What `POST /factory/options` needs; `apiSecret` is never logged or echoed. */
export interface OptionUpdate {
  /** The key's API secret (`X-Api-Secret`), sent only with this write; never logged. */
  apiSecret: string;
  /** The company whose slot is written (must be owned by the key's character). */
  factoryId: string;
  /** Slot number, 1..10 (checked before the request). */
  slot: number;
  /** New title, at most 64 characters (`.` as title and data clears the slot, see `CLEARED_SLOT_TEXT`). */
  title: string;
  /** New data, at most 2400 characters. */
  data: string;
}

/**
 * `POST /factory/options`: writes a slot; resolves to the upstream's message text. With
 * `writeThrough`, the slot's cached read becomes what was written (no GET to read it back).
 */
export async function updateOption(
  session: UpstreamSession,
  update: OptionUpdate,
  writeThrough = false,
): Promise<string> {
  const endpoint = ENDPOINTS.factoryOptionUpdate;
  const body = await session.post(
    endpoint,
    {
      apiSecret: update.apiSecret,
      factoryId: update.factoryId,
      option: update.slot,
      title: update.title,
      data: update.data,
    },
    writeThrough
      ? {
          endpoint: ENDPOINTS.factoryOption,
          params: { id: update.factoryId, slot: update.slot },
          body: { title: update.title, data: update.data, lastUpdated: new Date().toISOString() },
        }
      : undefined,
  );
  return mapResponse(endpoint, body, mapUpdateMessage);
}
