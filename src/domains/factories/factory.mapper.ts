/**
 * Mappers from the company endpoints' JSON (entering as `unknown`) to the GraphQL
 * types. Each one narrows with {@link JsonObject}: identifying fields are strict
 * (`ShapeError`), every other field is read tolerantly (null or a documented default,
 * counted as drift). The upstream's known drifts are handled here: numeric VBANs
 * become strings, `item` stands in for a production's `itemName`, `lastUpdate` for an
 * option's `lastUpdated`, and a slot cleared with "." (title and data) reads as unset.
 */
import { JsonObject, ShapeError, mapArray, noteDrift } from '../shared/narrow';
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
      name: f.text('name'),
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
    totalWeight: inv.numberOr('totalWeight'),
    items: inv.arrayOr('items', (element, path) => {
      const i = JsonObject.of(element, path);
      return {
        item: i.text('item'),
        amount: i.numberOr('amount'),
        singleWeight: i.numberOr('singleWeight'),
        totalWeight: i.numberOr('totalWeight'),
        icon: i.optionalString('icon'),
      };
    }),
  };
}

/** `CounterResponse` → {@link Counter}. */
export function mapCounter(body: unknown): Counter {
  const counter = JsonObject.of(body);
  return {
    totalWeight: counter.numberOr('totalWeight'),
    items: counter.arrayOr('items', (element, path) => {
      const i = JsonObject.of(element, path);
      return {
        item: i.text('item'),
        price: i.numberOr('price'),
        amount: i.numberOr('amount'),
        singleWeight: i.numberOr('singleWeight'),
        totalWeight: i.numberOr('totalWeight'),
        icon: i.optionalString('icon'),
      };
    }),
  };
}

/** `{name, amount}` pairs of recipes and buy logs. */
export function mapItemAmount(element: unknown, path: string): ItemAmount {
  const i = JsonObject.of(element, path);
  return { name: i.text('name'), amount: i.numberOr('amount') };
}

/** A production's `itemName`, or its `item` where the upstream says so (drift); "" when neither. */
function productionItemName(p: JsonObject): string {
  const itemName = p.optionalString('itemName');
  if (itemName !== null) return itemName;
  noteDrift(`${p.path}.itemName`);
  return p.optionalString('item') ?? '';
}

/** `GET /factory/productions/{id}` → productions. */
export function mapProductions(body: unknown): Production[] {
  return mapArray(body, (element, path) => {
    const p = JsonObject.of(element, path);
    return {
      itemName: productionItemName(p),
      icon: p.optionalString('icon'),
      neededItems: p.arrayOr('neededItems', mapItemAmount),
    };
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
      name: v.text('name'),
      image: v.optionalString('image'),
      numberPlate: v.text('numberPlate'),
      distance: Math.round(v.numberOr('distance')),
      engine: v.text('engine'),
    };
  });
}

/** `GET /factory/buyLog/{id}/{limit}/{skip}` → entries. */
export function mapBuyLog(body: unknown): BuyLogEntry[] {
  return mapArray(body, (element, path) => {
    const e = JsonObject.of(element, path);
    return {
      seller: e.text('seller'),
      buyer: e.text('buyer'),
      price: e.numberOr('price'),
      discount: e.optionalNumber('discount'),
      items: e.arrayOr('items', mapItemAmount),
      createdAt: e.dateOr('createdAt'),
    };
  });
}

/** The text clients write into a slot's title and data to clear it. */
export const CLEARED_SLOT_TEXT = '.';

/**
 * `GET /factory/options/{id}/{slot}` → the slot, or null when it reads as cleared
 * (title and data both "."; how clients clear a slot, counted as drift). A null or
 * missing title or data is "" (drift); `lastUpdate` stands in for `lastUpdated` (drift).
 */
export function mapOption(body: unknown, slot: number): FactoryOption | null {
  const o = JsonObject.of(body);
  const title = o.text('title');
  const data = o.text('data');
  if (title === CLEARED_SLOT_TEXT && data === CLEARED_SLOT_TEXT) {
    noteDrift('cleared');
    return null;
  }
  let lastUpdated = o.optionalDate('lastUpdated');
  if (lastUpdated === null && o.has('lastUpdate')) {
    noteDrift('lastUpdated');
    lastUpdated = o.optionalDate('lastUpdate');
  }
  return { slot, title, data, lastUpdated };
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
