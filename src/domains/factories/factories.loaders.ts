import type DataLoader from 'dataloader';
import type { UpstreamSession } from '../../economy';
import type { TransactionPage } from '../shared/bank-account.type';
import type { LoaderOptions } from '../shared/loader';
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
  list: DataLoader<'all', Factory[], string>;
  /** `GET /factory/inventory/{id}` by company id: the normal store. */
  inventory: DataLoader<string, Inventory, string>;
  /** `GET /factory/machine/{id}` by company id: all machine stores together. */
  machineInventory: DataLoader<string, Inventory, string>;
  /** `GET /factory/counter/{id}` by company id: the shop shelf with prices. */
  counter: DataLoader<string, Counter, string>;
  /** `GET /factory/productions/{id}` by company id (premium-only upstream: rejects with FORBIDDEN without it). */
  productions: DataLoader<string, Production[], string>;
  /** `GET /factory/bankaccounts/{id}` by company id (premium-only upstream). */
  bankAccounts: DataLoader<string, FactoryBankAccount[], string>;
  /** Keyed by account id, limit and skip. */
  transactions: DataLoader<PageKey, TransactionPage, string>;
  /** `GET /factory/vehicles/{id}` by company id: the vehicles of a car dealership (empty for other companies). */
  vehicles: DataLoader<string, Vehicle[], string>;
  /** Keyed by company id, limit and skip. */
  buyLog: DataLoader<PageKey, BuyLogEntry[], string>;
  /** Keyed by company id and slot; null for an unset slot. */
  option: DataLoader<{ id: string; slot: number }, FactoryOption | null, string>;
}

/**
 * Creates the company loaders for one operation. Call it from the context factory
 * only: loaders cache for their whole life, so they must not outlive the operation.
 */
function createFactoryLoaders(session: UpstreamSession, options: LoaderOptions): FactoryLoaders {
  return {
    list: createFetchLoader(() => api.fetchFactoryList(session), options),
    inventory: createFetchLoader((id) => api.fetchInventory(session, id), options),
    machineInventory: createFetchLoader((id) => api.fetchMachineInventory(session, id), options),
    counter: createFetchLoader((id) => api.fetchCounter(session, id), options),
    productions: createFetchLoader((id) => api.fetchProductions(session, id), options),
    bankAccounts: createFetchLoader((id) => api.fetchFactoryBankAccounts(session, id), options),
    transactions: createFetchLoader((key) => api.fetchFactoryTransactions(session, key), options, pageKey),
    vehicles: createFetchLoader((id) => api.fetchVehicles(session, id), options),
    buyLog: createFetchLoader((key) => api.fetchBuyLog(session, key), options, pageKey),
    option: createFetchLoader((key) => api.fetchOption(session, key), options, (key) => `${key.id}/${key.slot}`),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The company loaders, created on first use in the operation. */
    factories: FactoryLoaders;
  }
}

registerLoaders('factories', createFactoryLoaders);
