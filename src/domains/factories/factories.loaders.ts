import type { UpstreamSession } from '../../economy';
import type { TransactionPage } from '../shared/bank-account.type';
import type { FetchLoader, LoaderOptions } from '../shared/loader';
import { createFetchLoader, pageKey, registerLoaders } from '../shared/loader';
import type { PageKey } from '../shared/loader';
import * as api from './factories.api';
import type { BuyLogEntry } from './buy-log-entry.type';
import type { Counter } from './counter.type';
import type { FactoryBankAccount } from './factory-bank-account.type';
import type { FactoryOption } from './factory-option.type';
import type { Factory } from './factory.type';
import type { Inventory } from './inventory.type';
import type { Production } from './production.type';
import type { Vehicle } from './vehicle.type';

/** The company loaders of one operation, one per endpoint, keyed by the request's parameters. */
export interface FactoryLoaders {
  /** `GET /factory/list/`; the only key is `'all'`. */
  list: FetchLoader<'all', Factory[]>;
  /** `GET /factory/inventory/{id}` by company id: the normal store. */
  inventory: FetchLoader<string, Inventory>;
  /** `GET /factory/machine/{id}` by company id: all machine stores together. */
  machineInventory: FetchLoader<string, Inventory>;
  /** `GET /factory/counter/{id}` by company id: the shop shelf with prices. */
  counter: FetchLoader<string, Counter>;
  /** `GET /factory/productions/{id}` by company id (premium-only upstream: rejects with FORBIDDEN without it). */
  productions: FetchLoader<string, Production[]>;
  /** `GET /factory/bankaccounts/{id}` by company id (premium-only upstream). */
  bankAccounts: FetchLoader<string, FactoryBankAccount[]>;
  /** Keyed by account id, limit and skip. */
  transactions: FetchLoader<PageKey, TransactionPage>;
  /** `GET /factory/vehicles/{id}` by company id: the vehicles of a car dealership (empty for other companies). */
  vehicles: FetchLoader<string, Vehicle[]>;
  /** Keyed by company id, limit and skip. */
  buyLog: FetchLoader<PageKey, BuyLogEntry[]>;
  /** Keyed by company id and slot; null for an unset slot. */
  option: FetchLoader<{ id: string; slot: number }, FactoryOption | null>;
}

/**
 * Creates the company loaders for one operation. Call it from the context factory
 * only: loaders cache for their whole life, so they must not outlive the operation.
 */
function createFactoryLoaders(session: UpstreamSession, options: LoaderOptions): FactoryLoaders {
  return {
    list: createFetchLoader(session, api.fetchFactoryList, options),
    inventory: createFetchLoader(session, api.fetchInventory, options),
    machineInventory: createFetchLoader(session, api.fetchMachineInventory, options),
    counter: createFetchLoader(session, api.fetchCounter, options),
    productions: createFetchLoader(session, api.fetchProductions, options),
    bankAccounts: createFetchLoader(session, api.fetchFactoryBankAccounts, options),
    transactions: createFetchLoader(session, api.fetchFactoryTransactions, options, pageKey),
    vehicles: createFetchLoader(session, api.fetchVehicles, options),
    buyLog: createFetchLoader(session, api.fetchBuyLog, options, pageKey),
    option: createFetchLoader(session, api.fetchOption, options, (key) => `${key.id}/${key.slot}`),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The company loaders, created on first use in the operation. */
    factories: FactoryLoaders;
  }
}

registerLoaders('factories', createFactoryLoaders);
