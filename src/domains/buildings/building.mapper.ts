/** Mappers from the building endpoints' JSON (`unknown`) to the GraphQL types. */
import { mapBankAccountFields } from '../shared/bank-account.mapper';
import { JsonObject, mapArray } from '../shared/narrow';
import type { Building, BuildingBankAccount, BuildingDetails, Room, Tenant } from './building.type';

/** `GET /building/list` → buildings. */
export function mapBuildingList(body: unknown): Building[] {
  return mapArray(body, (element, path) => {
    const b = JsonObject.of(element, path);
    return { id: b.stringish('id'), hash: b.string('hash'), label: b.string('label'), address: b.string('address') };
  });
}

/** `GET /building/details/{id}` → details. */
export function mapBuildingDetails(body: unknown): BuildingDetails {
  const d = JsonObject.of(body);
  return {
    area: d.stringish('area'),
    garageSlots: d.integer('garageSlots'),
    price: d.number('price'),
    totalRooms: d.integer('totalRooms'),
    occupiedRooms: d.integer('occupiedRooms'),
    freeRooms: d.integer('freeRooms'),
  };
}

/** `GET /building/rooms/{id}` → rooms, each remembering its building. */
export function mapRooms(body: unknown, buildingId: string): Room[] {
  return mapArray(body, (element, path) => {
    const r = JsonObject.of(element, path);
    const interior = r.object('interiorDetails');
    return {
      id: r.stringish('id'),
      hash: r.string('hash'),
      name: r.string('name'),
      rent: r.number('rent'),
      occupied: r.boolean('occupied'),
      interior: r.string('interior'),
      interiorImage: r.optionalString('interiorImage'),
      interiorDetails: {
        inventoryCapacity: interior.number('inventoryCapacity'),
        kitchenCapacity: interior.number('kitchenCapacity'),
        wardrobeCapacity: interior.number('wardrobeCapacity'),
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
      roomHash: t.string('roomHash'),
      roomName: t.string('roomName'),
      tenantName: t.string('tenantName'),
      lastPayDate: t.optionalDate('lastPayDate'),
      buildingId,
    };
  });
}

/** `GET /building/bankaccounts/{id}` → accounts, VBANs as strings. */
export function mapBuildingBankAccounts(body: unknown): BuildingBankAccount[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return { ...mapBankAccountFields(a), main: a.boolean('main') } as BuildingBankAccount;
  });
}
