/** The building endpoints, one function each: request through the session, then map. */
import { ENDPOINTS } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../upstream/session';
import { mapTransactionPage } from '../shared/bank-account.mapper';
import type { TransactionPage } from '../shared/bank-account.type';
import { mapResponse } from '../shared/narrow';
import type { PageKey } from '../shared/loader';
import { mapBuildingBankAccounts, mapBuildingDetails, mapBuildingList, mapRooms, mapTenants } from './building.mapper';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** `GET /building/list`: the buildings the character owns directly. */
export async function fetchBuildingList(session: UpstreamSession): Promise<Building[]> {
  return mapResponse(ENDPOINTS.buildingList, await session.get(ENDPOINTS.buildingList), mapBuildingList);
}

/** `GET /building/details/{id}`. */
export async function fetchBuildingDetails(session: UpstreamSession, id: string): Promise<BuildingDetails> {
  return mapResponse(ENDPOINTS.buildingDetails, await session.get(ENDPOINTS.buildingDetails, { id }), mapBuildingDetails);
}

/** `GET /building/rooms/{id}`. */
export async function fetchRooms(session: UpstreamSession, id: string): Promise<Room[]> {
  return mapResponse(ENDPOINTS.buildingRooms, await session.get(ENDPOINTS.buildingRooms, { id }), (body) => mapRooms(body, id));
}

/** `GET /building/tenants/{id}` (premium only). */
export async function fetchTenants(session: UpstreamSession, id: string): Promise<Tenant[]> {
  return mapResponse(ENDPOINTS.buildingTenants, await session.get(ENDPOINTS.buildingTenants, { id }), (body) => mapTenants(body, id));
}

/** `GET /building/bankaccounts/{id}` (premium only). */
export async function fetchBuildingBankAccounts(session: UpstreamSession, id: string): Promise<BuildingBankAccount[]> {
  return mapResponse(ENDPOINTS.buildingBankAccounts, await session.get(ENDPOINTS.buildingBankAccounts, { id }), mapBuildingBankAccounts);
}

/** `GET /building/transactions/{bankId}/{limit}/{skip}` (premium only); `key.id` is the account id. */
export async function fetchBuildingTransactions(session: UpstreamSession, key: PageKey): Promise<TransactionPage> {
  const endpoint = ENDPOINTS.buildingTransactions;
  return mapResponse(endpoint, await session.get(endpoint, { bankId: key.id, limit: key.limit, skip: key.skip }), mapTransactionPage);
}
