/**
 * Mappers from the company endpoints' JSON (entering as `unknown`) to the GraphQL
 * types. Each one narrows with {@link JsonObject} and throws `ShapeError` on a
 * value of the wrong shape. The upstream's quirks are handled here:
 * numeric VBANs become strings, and an option record that says `lastUpdate`
 * instead of `lastUpdated` still fills `lastUpdated`.
 */
import { JsonObject, ShapeError, mapArray } from '../shared/narrow';
import { mapBankAccountFields } from '../shared/bank-account.mapper';
import type { ItemAmount } from '../shared/item-amount.type';
import type { BuyLogEntry } from './buy-log-entry.type';
import type { Counter } from './counter.type';
import type { FactoryBankAccount } from './factory-bank-account.type';
import type { FactoryOption } from './factory-option.type';
import type { Factory } from './factory.type';
import type { Inventory } from './inventory.type';
import type { Production } from './production.type';
import type { Vehicle } from './vehicle.type';

/** `GET /factory/list/` → companies. Fields that need factory.details become null when absent. */
export function mapFactoryList(body: unknown): Factory[] {
  return mapArray(body, (element, path) => {
    const f = JsonObject.of(element, path);
    return {
      id: f.stringish('id'),
      name: f.string('name'),
      hash: f.optionalString('hash'),
      adLine: f.optionalString('adLine'),
      isOpen: f.optionalBoolean('isOpen'),
      type: f.optionalString('type'),
      address: f.optionalString('address'),
    };
  });
}

/** The empty store the gateway answers when the upstream says 404 "… is empty". */
export function emptyInventory(): Inventory {
  return { totalWeight: 0, items: [] };
}

/** `InventoryResponse` (store and machine store) → {@link Inventory}. */
export function mapInventory(body: unknown): Inventory {
  const inv = JsonObject.of(body);
  return {
    totalWeight: inv.number('totalWeight'),
    items: inv.array('items', (element, path) => {
      const i = JsonObject.of(element, path);
      return {
        item: i.string('item'),
        amount: i.number('amount'),
        singleWeight: i.number('singleWeight'),
        totalWeight: i.number('totalWeight'),
        icon: i.optionalString('icon'),
      };
    }),
  };
}

/** `CounterResponse` → {@link Counter}. */
export function mapCounter(body: unknown): Counter {
  const counter = JsonObject.of(body);
  return {
    totalWeight: counter.number('totalWeight'),
    items: counter.array('items', (element, path) => {
      const i = JsonObject.of(element, path);
      return {
        item: i.string('item'),
        price: i.number('price'),
        amount: i.number('amount'),
        singleWeight: i.number('singleWeight'),
        totalWeight: i.number('totalWeight'),
        icon: i.optionalString('icon'),
      };
    }),
  };
}

/** `{name, amount}` pairs of recipes and buy logs. */
export function mapItemAmount(element: unknown, path: string): ItemAmount {
  const i = JsonObject.of(element, path);
  return { name: i.string('name'), amount: i.number('amount') };
}

/** `GET /factory/productions/{id}` → productions. */
export function mapProductions(body: unknown): Production[] {
  return mapArray(body, (element, path) => {
    const p = JsonObject.of(element, path);
    return { itemName: p.string('itemName'), icon: p.optionalString('icon'), neededItems: p.array('neededItems', mapItemAmount) };
  });
}

/** `GET /factory/bankaccounts/{id}` → accounts, VBANs as strings. */
export function mapFactoryBankAccounts(body: unknown): FactoryBankAccount[] {
  return mapArray(body, (element, path) => mapBankAccountFields(JsonObject.of(element, path)) as FactoryBankAccount);
}

/** `GET /factory/vehicles/{id}` → vehicles. */
export function mapVehicles(body: unknown): Vehicle[] {
  return mapArray(body, (element, path) => {
    const v = JsonObject.of(element, path);
    return {
      name: v.string('name'),
      image: v.optionalString('image'),
      numberPlate: v.stringish('numberPlate'),
      distance: Math.round(v.number('distance')),
      engine: v.string('engine'),
    };
  });
}

/** `GET /factory/buyLog/{id}/{limit}/{skip}` → entries. */
export function mapBuyLog(body: unknown): BuyLogEntry[] {
  return mapArray(body, (element, path) => {
    const e = JsonObject.of(element, path);
    return {
      seller: e.string('seller'),
      buyer: e.string('buyer'),
      price: e.number('price'),
      discount: e.optionalNumber('discount'),
      items: e.array('items', mapItemAmount),
      createdAt: e.date('createdAt'),
    };
  });
}

/** `GET /factory/options/{id}/{slot}` → the slot; reads `lastUpdate` when `lastUpdated` is absent. */
export function mapOption(body: unknown, slot: number): FactoryOption {
  const o = JsonObject.of(body);
  return {
    slot,
    title: o.string('title'),
    data: o.string('data'),
    lastUpdated: o.optionalDate('lastUpdated') ?? o.optionalDate('lastUpdate'),
  };
}

/**
 * The option edit's success body: plain text, or the same text as a JSON string.
 * Returns the text without quotes.
 */
export function mapUpdateMessage(body: unknown): string {
  if (typeof body === 'string') {
    const trimmed = body.trim();
    if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (typeof parsed === 'string') return parsed;
      } catch {
        // not JSON after all: keep the text
      }
    }
    return trimmed;
  }
  if (body && typeof body === 'object') {
    const message: unknown = (body as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
  }
  throw new ShapeError('', 'a message string', body);
}
