/** Mappers from the building endpoints' JSON (`unknown`) to the GraphQL types; tolerant like every mapper (see `narrow.ts`). */
import { mapBankAccountFields } from '../shared/bank-account.mapper';
import { JsonObject, mapArray } from '../shared/narrow';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** `GET /building/list` → buildings. */
export function mapBuildingList(body: unknown): Building[] {
  return mapArray(body, (element, path) => {
    const b = JsonObject.of(element, path);
    return { id: b.stringish('id'), hash: b.text('hash'), label: b.text('label'), address: b.text('address') };
  });
}

/** `GET /building/details/{id}` → details. */
export function mapBuildingDetails(body: unknown): BuildingDetails {
  const d = JsonObject.of(body);
  return {
    area: d.text('area'),
    garageSlots: d.integerOr('garageSlots'),
    price: d.numberOr('price'),
    totalRooms: d.integerOr('totalRooms'),
    occupiedRooms: d.integerOr('occupiedRooms'),
    freeRooms: d.integerOr('freeRooms'),
  };
}

/** `GET /building/rooms/{id}` → rooms, each remembering its building. */
export function mapRooms(body: unknown, buildingId: string): Room[] {
  return mapArray(body, (element, path) => {
    const r = JsonObject.of(element, path);
    const interior = r.objectOr('interiorDetails');
    return {
      id: r.stringish('id'),
      hash: r.text('hash'),
      name: r.text('name'),
      rent: r.numberOr('rent'),
      occupied: r.booleanOr('occupied'),
      interior: r.text('interior'),
      interiorImage: r.optionalString('interiorImage'),
      interiorDetails: {
        inventoryCapacity: interior.numberOr('inventoryCapacity'),
        kitchenCapacity: interior.numberOr('kitchenCapacity'),
        wardrobeCapacity: interior.numberOr('wardrobeCapacity'),
      },
      buildingId,
    };
  });
}

/** `GET /building/tenants/{id}` → tenants; lastPayDate null without building.tenants.activity. */
export function mapTenants(body: unknown, buildingId: string): Tenant[] {
  return mapArray(body, (element, path) => {
    const t = JsonObject.of(element, path);
    return {
      roomId: t.stringish('roomId'),
      roomHash: t.text('roomHash'),
      roomName: t.text('roomName'),
      tenantName: t.text('tenantName'),
      lastPayDate: t.optionalDate('lastPayDate'),
      buildingId,
    };
  });
}

/** `GET /building/bankaccounts/{id}` → accounts, VBANs as strings. */
export function mapBuildingBankAccounts(body: unknown): BuildingBankAccount[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return { ...mapBankAccountFields(a), main: a.booleanOr('main') } as BuildingBankAccount;
  });
}
