/**
 * Wire shapes of the StateV REST API as the simulator sends them (reference sections 2.x).
 *
 * These types describe the JSON bodies exactly, including the documented quirks of the real
 * service (numeric `vban`, legacy `lastUpdate` option records). They belong to the simulator;
 * the gateway keeps its own decoding types.
 */

/** Element of `GET /factory/list/` (2.1). `isOpen`, `type`, `address` are present only with scope `factory.details`. */
export interface WireFactorySummary {
  /** Opaque company id. */
  id: string;
  /** Display name of the company. */
  name: string;
  /** Short company hash. */
  hash: string;
  /** Advertising line, null when none is set. */
  adLine: string | null;
  /** Whether the company is open right now (only with `factory.details`). */
  isOpen?: boolean | null;
  /** Company type, e.g. `'24/7'` (only with `factory.details`). */
  type?: string | null;
  /** Street address (only with `factory.details`). */
  address?: string | null;
}

/** One stack of a store or machine store (2.2). Weights in the game's weight unit (kg). */
export interface WireInventoryItem {
  /** Item name. */
  item: string;
  /** Number of units. */
  amount: number;
  /** Weight of one unit. */
  singleWeight: number;
  /** `amount * singleWeight`. */
  totalWeight: number;
  /** Icon URL for premium keys, otherwise null. */
  icon: string | null;
}

/** Body of `/factory/inventory/{id}` and `/factory/machine/{id}` (2.2). */
export interface WireInventoryResponse {
  /** Sum of the items' `totalWeight`. */
  totalWeight: number;
  /** The item stacks. */
  items: WireInventoryItem[];
}

/** One counter (shop shelf) stack (2.3): an inventory item plus its sale `price` per unit in dollars. */
export interface WireCounterItem extends WireInventoryItem {
  /** Sale price per unit. */
  price: number;
}

/** Body of `/factory/counter/{id}` (2.3). */
export interface WireCounterResponse {
  /** Sum of the items' `totalWeight`. */
  totalWeight: number;
  /** The counter stacks. */
  items: WireCounterItem[];
}

/** A `{name, amount}` pair used by productions and buy log entries. */
export interface WireNamedAmount {
  /** Item name. */
  name: string;
  /** Number of units. */
  amount: number;
}

/** Element of `/factory/productions/{id}` (2.4). The icon is always a URL (premium-only endpoint). */
export interface WireProduction {
  /** Produced item. */
  itemName: string;
  /** Icon URL of the produced item. */
  icon: string;
  /** Ingredients per produced unit. */
  neededItems: WireNamedAmount[];
}

/** Element of `/factory/bankaccounts/{id}` (2.5). `vban` is documented as a string but the real API sends a number for some accounts. */
export interface WireCompanyBankAccount {
  /** Opaque bank account id. */
  id: string;
  /** Virtual bank account number; a JSON number for legacy accounts (quirk). */
  vban: string | number;
  /** Balance in dollars. */
  balance: number;
  /** Free-text note, null when none. */
  note: string | null;
}

/** Element of `/building/bankaccounts/{id}` (2.13). */
export interface WireBuildingBankAccount {
  /** Opaque bank account id. */
  id: string;
  /** Virtual bank account number. */
  vban: string;
  /** Balance in dollars. */
  balance: number;
  /** Free-text note, null when none. */
  note: string | null;
  /** True for the building's main account. */
  main: boolean;
}

/** One bank transaction (2.6). Amounts are positive dollars; the direction follows from the vbans. */
export interface WireBankTransaction {
  /** Sending account, null for system or cash bookings. */
  senderVban: string | null;
  /** Receiving account, null for system or cash bookings. */
  receiverVban: string | null;
  /** Booking text, null when none. */
  reference: string | null;
  /** Amount in dollars. */
  amount: number;
  /** ISO 8601 booking time. */
  timestamp: string;
}

/** Body of the company and building transactions endpoints (2.6). */
export interface WireTransactionsResponse {
  /** Number of transactions of the account in total (independent of limit/skip). */
  totalTransactions: number;
  /** The requested page, newest first. */
  transactions: WireBankTransaction[];
}

/** Element of `/factory/marketoffers/sell/{id}` (2.7). */
export interface WireMarketOfferSell {
  /** Item name. */
  item: string;
  /** Price per unit in dollars. */
  pricePerUnit: number;
  /** `pricePerUnit * availableAmount`. */
  totalPrice: number;
  /** Units still available. */
  availableAmount: number;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** Icon URL for premium keys, otherwise null. */
  icon: string | null;
}

/** Element of `/factory/marketoffers/buy/{id}` (2.8). */
export interface WireMarketOfferBuy extends WireMarketOfferSell {
  /** Listed reference price per unit in dollars. */
  listPrice: number;
}

/** Element of `/factory/buyLog/{id}/{limit}/{skip}` (2.9). */
export interface WireBuyLogEntry {
  /** Selling employee. */
  seller: string;
  /** Buying customer. */
  buyer: string;
  /** Price paid in dollars. */
  price: number;
  /** Discount in percent, null when none. */
  discount: number | null;
  /** Items sold. */
  items: WireNamedAmount[];
  /** ISO 8601 time of the sale. */
  createdAt: string;
}

/** Element of `/factory/vehicles/{id}` (2.10). */
export interface WireVehicle {
  /** Model name. */
  name: string;
  /** Image URL for premium keys, otherwise null. */
  image: string | null;
  /** Number plate. */
  numberPlate: string;
  /** Distance driven in whole metres. */
  distance: number;
  /** Engine description. */
  engine: string;
}

/** Element of `/market/my/auctions/import` (2.11). */
export interface WireMyImportAuction {
  /** Opaque auction id. */
  id: string;
  /** Item name. */
  item: string;
  /** Current bid in dollars. */
  bidAmount: number;
  /** Whether the character holds the highest bid. */
  isLastBidderMe: boolean;
  /** ISO 8601 end time. */
  auctionEnd: string;
  /** Icon URL for premium keys, otherwise null. */
  icon: string | null;
}

/** Element of `/market/my/auctions/export` (2.11). */
export interface WireMyExportAuction extends WireMyImportAuction {
  /** Units offered. */
  amount: number;
  /** Weight of one unit. */
  singleWeight: number;
  /** `amount * singleWeight`. */
  totalWeight: number;
  /** Auction duration in hours, null when not set. */
  duration: number | null;
}

/** Element of `/market/import` (2.11). */
export interface WireImportAuction {
  /** Opaque auction id. */
  id: string;
  /** Item name. */
  item: string;
  /** Current bid in dollars. */
  bidAmount: number;
  /** ISO 8601 end time. */
  auctionEnd: string;
  /** Icon URL for premium keys, otherwise null. */
  icon: string | null;
}

/** Element of `/market/export` (2.11). */
export interface WireExportAuction extends WireImportAuction {
  /** Units offered. */
  amount: number;
  /** Total weight of the lot. */
  weight: number;
  /** Auction duration in hours. */
  duration: number;
}

/** Body of `GET /factory/options/{id}/{slot}` (2.12), as stored: current records use `lastUpdated`. */
export interface WireFactoryOption {
  /** Slot title (≤ 64 characters). */
  title: string;
  /** Slot data (≤ 2400 characters). */
  data: string;
  /** ISO 8601 time of the last write. */
  lastUpdated: string;
}

/** A legacy option record: the real API returns it with `lastUpdate` instead of `lastUpdated` (quirk). */
export interface WireLegacyFactoryOption {
  /** Slot title. */
  title: string;
  /** Slot data. */
  data: string;
  /** ISO 8601 time of the last write (legacy field name). */
  lastUpdate: string;
}

/** Element of `GET /building/list` (2.13). */
export interface WireBuildingSummary {
  /** Opaque building id. */
  id: string;
  /** Short building hash. */
  hash: string;
  /** Display label. */
  label: string;
  /** Street address. */
  address: string;
}

/** Body of `GET /building/details/{id}` (2.13). */
export interface WireBuildingDetails extends WireBuildingSummary {
  /** Area (district) name. */
  area: string;
  /** Number of garage slots. */
  garageSlots: number;
  /** Purchase price in dollars. */
  price: number;
  /** Number of rooms. */
  totalRooms: number;
  /** Number of rented rooms. */
  occupiedRooms: number;
  /** `totalRooms - occupiedRooms`. */
  freeRooms: number;
}

/** Element of `GET /building/tenants/{id}` (2.13). `lastPayDate` only with scope `building.tenants.activity`. */
export interface WireTenant {
  /** Id of the rented room. */
  roomId: string;
  /** Hash of the rented room. */
  roomHash: string;
  /** Name of the rented room. */
  roomName: string;
  /** Name of the tenant. */
  tenantName: string;
  /** ISO 8601 time of the last rent payment (only with `building.tenants.activity`). */
  lastPayDate?: string;
}

/** Element of `GET /building/rooms/{id}` (2.13). Never contains the tenant's name. */
export interface WireRoom {
  /** Opaque room id. */
  id: string;
  /** Short room hash. */
  hash: string;
  /** Room name. */
  name: string;
  /** Rent in dollars. */
  rent: number;
  /** Whether the room is rented. */
  occupied: boolean;
  /** Interior description. */
  interior: string;
  /** Interior image URL for premium keys, otherwise null. */
  interiorImage: string | null;
  /** Storage capacities of the interior. */
  interiorDetails: {
    /** Inventory capacity. */
    inventoryCapacity: number;
    /** Kitchen capacity. */
    kitchenCapacity: number;
    /** Wardrobe capacity. */
    wardrobeCapacity: number;
  };
}

/** Error body of every non-2xx answer (section 7). `error` is the HTTP status phrase. */
export interface WireErrorBody {
  /** HTTP status code. */
  statusCode: number;
  /** Human-readable message. */
  message: string;
  /** Status phrase, e.g. `'Bad Request'`; absent from the throttler's 429, as on the real API. */
  error?: string;
}
