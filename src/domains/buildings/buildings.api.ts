/** The building endpoints, one function each: request through the session, then map. */
import { ENDPOINTS } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../economy';
import { mapTransactionPage } from '../shared/bank-account.mapper';
import type { TransactionPage } from '../shared/bank-account.type';
import { fetchMapped } from '../shared/fetch-mapped';
import type { MaybePromise } from '../shared/maybe-promise';
import type { PageKey } from '../shared/loader';
import { mapBuildingBankAccounts, mapBuildingDetails, mapBuildingList, mapRooms, mapTenants } from './building.mapper';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** `GET /building/list`: the buildings the character owns directly. */
export function fetchBuildingList(session: UpstreamSession): MaybePromise<Building[]> {
  return fetchMapped(session, ENDPOINTS.buildingList, undefined, mapBuildingList);
}

/** `GET /building/details/{id}`. */
export function fetchBuildingDetails(session: UpstreamSession, id: string): MaybePromise<BuildingDetails> {
  return fetchMapped(session, ENDPOINTS.buildingDetails, { id }, mapBuildingDetails);
}

/** `GET /building/rooms/{id}`. */
export function fetchRooms(session: UpstreamSession, id: string): MaybePromise<Room[]> {
  return fetchMapped(session, ENDPOINTS.buildingRooms, { id }, (body) => mapRooms(body, id));
}

/** `GET /building/tenants/{id}` (premium only). */
export function fetchTenants(session: UpstreamSession, id: string): MaybePromise<Tenant[]> {
  return fetchMapped(session, ENDPOINTS.buildingTenants, { id }, (body) => mapTenants(body, id));
}

/** `GET /building/bankaccounts/{id}` (premium only). */
export function fetchBuildingBankAccounts(session: UpstreamSession, id: string): MaybePromise<BuildingBankAccount[]> {
  return fetchMapped(session, ENDPOINTS.buildingBankAccounts, { id }, mapBuildingBankAccounts);
}

/** `GET /building/transactions/{bankId}/{limit}/{skip}` (premium only); `key.id` is the account id. */
export function fetchBuildingTransactions(session: UpstreamSession, key: PageKey): MaybePromise<TransactionPage> {
  return fetchMapped(
    session,
    ENDPOINTS.buildingTransactions,
    { bankId: key.id, limit: key.limit, skip: key.skip },
    mapTransactionPage,
  );
}
