import type DataLoader from 'dataloader';
import type { UpstreamSession } from '../../economy';
import type { TransactionPage } from '../shared/bank-account.type';
import type { LoaderOptions } from '../shared/loader';
import { createFetchLoader, pageKey, registerLoaders } from '../shared/loader';
import type { PageKey } from '../shared/loader';
import * as api from './buildings.api';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** The building loaders of one operation, one per endpoint. */
export interface BuildingLoaders {
  /** `GET /building/list`; the only key is `'all'`. */
  list: DataLoader<'all', Building[], string>;
  /** `GET /building/details/{id}` by building id. */
  details: DataLoader<string, BuildingDetails, string>;
  /** `GET /building/rooms/{id}` by building id: the building's rooms. */
  rooms: DataLoader<string, Room[], string>;
  /** `GET /building/tenants/{id}` by building id (premium-only upstream: rejects with FORBIDDEN without it). */
  tenants: DataLoader<string, Tenant[], string>;
  /** `GET /building/bankaccounts/{id}` by building id (premium-only upstream). */
  bankAccounts: DataLoader<string, BuildingBankAccount[], string>;
  /** Keyed by account id, limit and skip. */
  transactions: DataLoader<PageKey, TransactionPage, string>;
}

/** Creates the building loaders for one operation (context factory only). */
function createBuildingLoaders(session: UpstreamSession, options: LoaderOptions): BuildingLoaders {
  return {
    list: createFetchLoader(() => api.fetchBuildingList(session), options),
    details: createFetchLoader((id) => api.fetchBuildingDetails(session, id), options),
    rooms: createFetchLoader((id) => api.fetchRooms(session, id), options),
    tenants: createFetchLoader((id) => api.fetchTenants(session, id), options),
    bankAccounts: createFetchLoader((id) => api.fetchBuildingBankAccounts(session, id), options),
    transactions: createFetchLoader((key) => api.fetchBuildingTransactions(session, key), options, pageKey),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The building loaders, created on first use in the operation. */
    buildings: BuildingLoaders;
  }
}

registerLoaders('buildings', createBuildingLoaders);
