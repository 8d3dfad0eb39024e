import type { UpstreamSession } from '../../economy';
import type { TransactionPage } from '../shared/bank-account.type';
import type { FetchLoader, LoaderOptions } from '../shared/loader';
import { createFetchLoader, pageKey, registerLoaders } from '../shared/loader';
import type { PageKey } from '../shared/loader';
import * as api from './buildings.api';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** The building loaders of one operation, one per endpoint. */
export interface BuildingLoaders {
  /** `GET /building/list`; the only key is `'all'`. */
  list: FetchLoader<'all', Building[]>;
  /** `GET /building/details/{id}` by building id. */
  details: FetchLoader<string, BuildingDetails>;
  /** `GET /building/rooms/{id}` by building id: the building's rooms. */
  rooms: FetchLoader<string, Room[]>;
  /** `GET /building/tenants/{id}` by building id (premium-only upstream: rejects with FORBIDDEN without it). */
  tenants: FetchLoader<string, Tenant[]>;
  /** `GET /building/bankaccounts/{id}` by building id (premium-only upstream). */
  bankAccounts: FetchLoader<string, BuildingBankAccount[]>;
  /** Keyed by account id, limit and skip. */
  transactions: FetchLoader<PageKey, TransactionPage>;
}

/** Creates the building loaders for one operation (context factory only). */
function createBuildingLoaders(session: UpstreamSession, options: LoaderOptions): BuildingLoaders {
  return {
    list: createFetchLoader(session, api.fetchBuildingList, options),
    details: createFetchLoader(session, api.fetchBuildingDetails, options),
    rooms: createFetchLoader(session, api.fetchRooms, options),
    tenants: createFetchLoader(session, api.fetchTenants, options),
    bankAccounts: createFetchLoader(session, api.fetchBuildingBankAccounts, options),
    transactions: createFetchLoader(session, api.fetchBuildingTransactions, options, pageKey),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The building loaders, created on first use in the operation. */
    buildings: BuildingLoaders;
  }
}

registerLoaders('buildings', createBuildingLoaders);
