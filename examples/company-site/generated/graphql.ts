/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** A date-time string at UTC, such as 2007-12-03T10:15:30Z, compliant with the `date-time` format outlined in section 5.6 of the RFC 3339 profile of the ISO 8601 standard for representation of dates and times using the Gregorian calendar.This scalar is serialized to a string in ISO 8601 format and parsed from a string in ISO 8601 format. */
  DateTimeISO: { input: string; output: string; }
  /** The `JSON` scalar type represents JSON values as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf). */
  JSON: { input: unknown; output: unknown; }
};

/** An import or export auction, released for the company types of the key's character. */
export type Auction = {
  /** When the auction ends (ISO 8601). */
  auctionEnd: Scalars['DateTimeISO']['output'];
  /** Current bid amount. */
  bidAmount: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Opaque auction identifier. */
  id: Scalars['ID']['output'];
  /** Item auctioned. */
  item: Scalars['String']['output'];
};

/** A change of one of the character's import or export auctions. */
export type AuctionChange = {
  __typename?: 'AuctionChange';
  /** the auction as last seen (for ENDED, as it was before it disappeared) */
  auction: MyAuction;
  /** What happened. */
  kind: AuctionChangeKind;
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The character whose auction changed (an access token over several characters watches each of them); null when the caller sent a StateV key. */
  owner?: Maybe<Character>;
  /** The bid before the change (as bidAmount gives it), for OUTBID, LEADING and BID_CHANGED; else null. */
  previousBidAmount?: Maybe<Scalars['Float']['output']>;
};

/** What happened to one of the character's auctions. */
export type AuctionChangeKind =
  /** the bid amount changed without a change of leader */
  | 'BID_CHANGED'
  /** the auction is gone from the character's list */
  | 'ENDED'
  /** the character now holds the highest bid */
  | 'LEADING'
  /** an auction of the character that was not there before */
  | 'NEW'
  /** someone else now holds the highest bid */
  | 'OUTBID';

/** A bank account of a company (FactoryBankAccount) or of a building (BuildingBankAccount). */
export type BankAccount = {
  /** Current balance (currency unit not documented upstream). */
  balance: Scalars['Float']['output'];
  /** Opaque bank account identifier (the id its transactions are read by). */
  id: Scalars['ID']['output'];
  /** The owner's note on the account, or null. */
  note?: Maybe<Scalars['String']['output']>;
  /** A page of the account's transactions. Premium only. Bounds: limit 1..25, skip 0..200. */
  transactions?: Maybe<TransactionPage>;
  /** The account's VBAN, always as a string (the upstream sometimes sends a number). */
  vban: Scalars['String']['output'];
};


/** A bank account of a company (FactoryBankAccount) or of a building (BuildingBankAccount). */
export type BankAccountTransactionsArgs = {
  limit?: Scalars['Int']['input'];
  skip?: Scalars['Int']['input'];
};

/** One bank transaction. Source: the transactions endpoints of companies and buildings. */
export type BankTransaction = {
  __typename?: 'BankTransaction';
  /** Amount of money (currency unit not documented upstream); the sign as the upstream sends it. */
  amount: Scalars['Float']['output'];
  /** VBAN of the receiving account, or null. */
  receiverVban?: Maybe<Scalars['String']['output']>;
  /** Free-text reference of the booking, or null. */
  reference?: Maybe<Scalars['String']['output']>;
  /** VBAN of the sending account, or null (e.g. system bookings). */
  senderVban?: Maybe<Scalars['String']['output']>;
  /** When the transaction was booked (ISO 8601). */
  timestamp: Scalars['DateTimeISO']['output'];
};

/** A building owned directly by the key's character (not a rented flat, not employment). The scalar fields come from GET /building/list (scope building); every other field needs its own upstream request and is null when that request fails. */
export type Building = {
  __typename?: 'Building';
  /** Address of the building. */
  address: Scalars['String']['output'];
  /** The building's bank accounts. Source: GET /building/bankaccounts/{id}. Scopes: building, building.bankaccount. Premium only. Without premium: FORBIDDEN with premium: true. */
  bankAccounts?: Maybe<Array<BuildingBankAccount>>;
  /** Master data and current occupancy. Source: GET /building/details/{id}. Scopes: building, building.details. Not premium-only. */
  details?: Maybe<BuildingDetails>;
  /** Building hash. */
  hash: Scalars['String']['output'];
  /** Opaque building identifier. */
  id: Scalars['ID']['output'];
  /** Label of the building. */
  label: Scalars['String']['output'];
  /** The character whose key serves this building; null when the caller sent a StateV key. */
  owner?: Maybe<Character>;
  /** The building's rooms. Source: GET /building/rooms/{id}. Scopes: building, building.rooms. Not premium-only. */
  rooms?: Maybe<Array<Room>>;
  /** The building's tenants; lastPayDate needs scope building.tenants.activity. Source: GET /building/tenants/{id}. Scopes: building, building.tenants (optional: building.tenants.activity). Premium only. Without premium: FORBIDDEN with premium: true. */
  tenants?: Maybe<Array<Tenant>>;
};

/** A bank account of a building. Source: GET /building/bankaccounts/{id} (premium only). */
export type BuildingBankAccount = BankAccount & {
  __typename?: 'BuildingBankAccount';
  /** Current balance (currency unit not documented upstream). */
  balance: Scalars['Float']['output'];
  /** Opaque bank account identifier (the id its transactions are read by). */
  id: Scalars['ID']['output'];
  /** Whether this is the building's main account. */
  main: Scalars['Boolean']['output'];
  /** The owner's note on the account, or null. */
  note?: Maybe<Scalars['String']['output']>;
  /** A page of the account's transactions. Source: GET /building/transactions/{bankId}/{limit}/{skip}. Scopes: building, building.bankaccount. Premium only. Bounds: limit 1..25, skip 0..200. */
  transactions?: Maybe<TransactionPage>;
  /** The account's VBAN, always as a string (the upstream sometimes sends a number). */
  vban: Scalars['String']['output'];
};


/** A bank account of a building. Source: GET /building/bankaccounts/{id} (premium only). */
export type BuildingBankAccountTransactionsArgs = {
  limit?: Scalars['Int']['input'];
  skip?: Scalars['Int']['input'];
};

/** Master data and current occupancy of a building. Source: GET /building/details/{id}. */
export type BuildingDetails = {
  __typename?: 'BuildingDetails';
  /** Area (as the upstream describes it). */
  area: Scalars['String']['output'];
  /** Number of free rooms. */
  freeRooms: Scalars['Int']['output'];
  /** Number of garage slots. */
  garageSlots: Scalars['Int']['output'];
  /** Number of occupied rooms. */
  occupiedRooms: Scalars['Int']['output'];
  /** Price of the building. */
  price: Scalars['Float']['output'];
  /** Number of rooms. */
  totalRooms: Scalars['Int']['output'];
};

/** One purchase recorded in the company's buy log (meant for workshops at present). */
export type BuyLogEntry = {
  __typename?: 'BuyLogEntry';
  /** The buyer. */
  buyer: Scalars['String']['output'];
  /** When the purchase happened (ISO 8601). */
  createdAt: Scalars['DateTimeISO']['output'];
  /** Discount granted, or null. */
  discount?: Maybe<Scalars['Float']['output']>;
  /** The items bought. */
  items: Array<ItemAmount>;
  /** Price paid. */
  price: Scalars['Float']['output'];
  /** The seller. */
  seller: Scalars['String']['output'];
};

/** A StateV character whose API key the gateway holds in its vault. Never carries the key or the secret. */
export type Character = {
  __typename?: 'Character';
  /** The vault entry's id; for a StateV key sent by the caller, the key's keyed hash (never the key). */
  id: Scalars['ID']['output'];
  /** The name given when the key was added to the vault ("API key" for a key sent by the caller). */
  name: Scalars['String']['output'];
};

/** The counter (shop shelf) of an end-consumer shop (24/7 shops, restaurants, clothing shops, gas stations). An empty counter is returned as totalWeight 0 and no items (the upstream answers 404 "Counter is empty"). */
export type Counter = {
  __typename?: 'Counter';
  /** The items on the counter. */
  items: Array<CounterItem>;
  /** Total weight of the counter's contents. */
  totalWeight: Scalars['Float']['output'];
};

/** A change of a company's counter (shop shelf), found by one poll. */
export type CounterChange = {
  __typename?: 'CounterChange';
  /** The items that appeared, disappeared, or changed amount or price. */
  changes: Array<CounterItemChange>;
  /** The counter after the change. */
  counter: Counter;
  /** The company. */
  factoryId: Scalars['ID']['output'];
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
};

/** One item on the counter (shop shelf), with its sale price. */
export type CounterItem = {
  __typename?: 'CounterItem';
  /** How many units are on the counter. */
  amount: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Item name. */
  item: Scalars['String']['output'];
  /** Sale price per unit (currency unit not documented upstream). */
  price: Scalars['Float']['output'];
  /** Weight of one unit. */
  singleWeight: Scalars['Float']['output'];
  /** Weight of all units of this item. */
  totalWeight: Scalars['Float']['output'];
};

/** One counter item that appeared, disappeared, or changed amount or price. */
export type CounterItemChange = {
  __typename?: 'CounterItemChange';
  /** Amount after; null when the item is no longer on the counter. */
  amountAfter?: Maybe<Scalars['Float']['output']>;
  /** Amount before; null when the item was not on the counter before. */
  amountBefore?: Maybe<Scalars['Float']['output']>;
  /** Item name (the identity of an item on the counter). */
  item: Scalars['String']['output'];
  /** Price per unit after (as CounterItem.price); null when the item is no longer on the counter. */
  priceAfter?: Maybe<Scalars['Float']['output']>;
  /** Price per unit before (as CounterItem.price); null when the item was not on the counter before. */
  priceBefore?: Maybe<Scalars['Float']['output']>;
};

/** What a new payment request asks for. */
export type CreatePaymentRequestInput = {
  /** Greater than 0. */
  amount: Scalars['Float']['input'];
  /** A bank account of the company (BankAccount.id). */
  bankAccountId: Scalars['ID']['input'];
  /** Omitted: never expires. From 1 to 31536000 (a year). */
  expiresInSeconds?: InputMaybe<Scalars['Int']['input']>;
  /** The company (Factory.id) of the key's character. */
  factoryId: Scalars['ID']['input'];
  /** At most 200 characters; returned as given, never sent upstream. */
  note?: InputMaybe<Scalars['String']['input']>;
};

/** Input of deleteSiteDocument. Checked before any upstream request like setSiteDocument's. */
export type DeleteSiteDocumentInput = {
  /** The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT. */
  apiSecret?: InputMaybe<Scalars['String']['input']>;
  /** Delete only if the stored version is this one; omitted: no check. CONFLICT on a mismatch, with nothing written. */
  expectedVersion?: InputMaybe<Scalars['Int']['input']>;
  /** The company whose option slots hold the document. */
  factoryId: Scalars['ID']['input'];
  /** The document's name, 1 to 32 characters: a-z, 0-9, '-', '_' and '.'. */
  name: Scalars['String']['input'];
};

/** Result of deleteSiteDocument. */
export type DeleteSiteDocumentPayload = {
  __typename?: 'DeleteSiteDocumentPayload';
  /** Slots freed: the committing slot (cleared first, which removes the document at once) and the chunks (cleared after). Empty when there was no such document. */
  freedSlots: Array<Scalars['Int']['output']>;
  /** The version the deletion removed (0: there was no such document), as read under the company's write lock. */
  replacedVersion: Scalars['Int']['output'];
  /** Upstream option writes (POST /factory/options) the deletion took. */
  upstreamWrites: Scalars['Int']['output'];
};

/** An available export auction. Source: GET /market/export (premium only). */
export type ExportAuction = Auction & {
  __typename?: 'ExportAuction';
  /** Units auctioned. */
  amount: Scalars['Float']['output'];
  /** When the auction ends (ISO 8601). */
  auctionEnd: Scalars['DateTimeISO']['output'];
  /** Current bid amount. */
  bidAmount: Scalars['Float']['output'];
  /** Duration of the auction (unit not documented upstream). */
  duration: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Opaque auction identifier. */
  id: Scalars['ID']['output'];
  /** Item auctioned. */
  item: Scalars['String']['output'];
  /** Weight of the lot (unit not documented upstream). */
  weight: Scalars['Float']['output'];
};

/** A company (the upstream calls it factory) owned by the key's character. The scalar fields come from GET /factory/list/ (scope factory); every other field needs its own upstream request and is null when that request fails. */
export type Factory = {
  __typename?: 'Factory';
  /** Advertising line; null when absent. */
  adLine?: Maybe<Scalars['String']['output']>;
  /** Address of the company. Filled only with scope factory.details, else null. */
  address?: Maybe<Scalars['String']['output']>;
  /** The company's bank accounts. Source: GET /factory/bankaccounts/{id}. Scopes: factory, factory.bankaccount. Premium only. Without premium: FORBIDDEN with premium: true. */
  bankAccounts?: Maybe<Array<FactoryBankAccount>>;
  /** One page of the company's buy log (meant for workshops). Source: GET /factory/buyLog/{id}/{limit}/{skip}. Scopes: factory, factory.buylog. Not premium-only. Bounds: limit 1..50, skip 0..1000. */
  buyLog?: Maybe<Array<BuyLogEntry>>;
  /** The company's buy offers on the market. Source: GET /factory/marketoffers/buy/{id}. Scopes: factory, market. Not premium-only. */
  buyOffers?: Maybe<Array<MarketOfferBuy>>;
  /** The counter (shop shelf) with prices, for end-consumer shops; an empty counter has no items. Source: GET /factory/counter/{id}. Scopes: factory, factory.counter. Not premium-only. */
  counter?: Maybe<Counter>;
  /** Company hash as the upstream sends it; null when absent. */
  hash?: Maybe<Scalars['String']['output']>;
  /** Opaque company identifier (the upstream's firmenId / factoryId). */
  id: Scalars['ID']['output'];
  /** The normal store, without machine stores and counter; an empty store has no items. Source: GET /factory/inventory/{id}. Scopes: factory, factory.inventory. Not premium-only. */
  inventory?: Maybe<Inventory>;
  /** Whether the company is open. Filled only with scope factory.details, else null. */
  isOpen?: Maybe<Scalars['Boolean']['output']>;
  /** The items of all machine stores together; empty when there are none. Source: GET /factory/machine/{id}. Scopes: factory, factory.inventory. Not premium-only. */
  machineInventory?: Maybe<Inventory>;
  /** Company name. */
  name: Scalars['String']['output'];
  /** One free-text option slot; null when the slot was never set. Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. Bounds: slot 1..10. */
  option?: Maybe<FactoryOption>;
  /** All set option slots, 1..OPTION_SLOTS (default 10, at most 20), in slot order; unset and cleared slots are left out. One request per slot: Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. A slot that fails is left out and reported as its own error, with path [..., "options", slot - 1] and extensions.slot; the other slots stay. When every slot fails: null, with the first slot's error at the field's path. */
  options?: Maybe<Array<FactoryOption>>;
  /** The character whose key serves this company; null when the caller sent a StateV key. */
  owner?: Maybe<Character>;
  /** The company's productions (recipes). Source: GET /factory/productions/{id}. Scopes: factory, factory.productions. Premium only. Without premium: FORBIDDEN with premium: true. */
  productions?: Maybe<Array<Production>>;
  /** The company's sell offers on the market. Source: GET /factory/marketoffers/sell/{id}. Scopes: factory, market. Not premium-only. */
  sellOffers?: Maybe<Array<MarketOfferSell>>;
  /** The named JSON document this company keeps in its option slots (written with setSiteDocument), or null when there is none. Reads the slots the document occupies (Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only.), through the per-key cache: from the name's home slot upwards until its committing slot, then the chunks only when value is selected. Every read is checked against the manifest's hashes and SHA-256: a mismatch is SITE_DOCUMENT_CORRUPT naming the slots, never a wrong value. Name: 1 to 32 characters: a-z, 0-9, '-', '_' and '.', else BAD_USER_INPUT before any upstream request. */
  siteDocument?: Maybe<SiteDocument>;
  /** Which option slots are free for site documents and which hold data written by something else, and about how many bytes of JSON still fit (an estimate: compression varies). Reads every slot through the cache: Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. */
  siteDocumentCapacity?: Maybe<SiteDocumentCapacity>;
  /** Every site document in this company's option slots, newest first; values are not read (one request per slot, OPTION_SLOTS of them, through the cache: Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only.). */
  siteDocuments?: Maybe<Array<SiteDocumentInfo>>;
  /** Company type (e.g. a shop type). Filled only with scope factory.details, else null. */
  type?: Maybe<Scalars['String']['output']>;
  /** Vehicles whose dealership (carShop) is this company; empty for other companies. Source: GET /factory/vehicles/{id}. Scopes: factory, factory.vehicles. Not premium-only. */
  vehicles?: Maybe<Array<Vehicle>>;
};


/** A company (the upstream calls it factory) owned by the key's character. The scalar fields come from GET /factory/list/ (scope factory); every other field needs its own upstream request and is null when that request fails. */
export type FactoryBuyLogArgs = {
  limit?: Scalars['Int']['input'];
  skip?: Scalars['Int']['input'];
};


/** A company (the upstream calls it factory) owned by the key's character. The scalar fields come from GET /factory/list/ (scope factory); every other field needs its own upstream request and is null when that request fails. */
export type FactoryOptionArgs = {
  slot: Scalars['Int']['input'];
};


/** A company (the upstream calls it factory) owned by the key's character. The scalar fields come from GET /factory/list/ (scope factory); every other field needs its own upstream request and is null when that request fails. */
export type FactorySiteDocumentArgs = {
  name: Scalars['String']['input'];
};

/** A bank account of a company. Source: GET /factory/bankaccounts/{id} (premium only). */
export type FactoryBankAccount = BankAccount & {
  __typename?: 'FactoryBankAccount';
  /** Current balance (currency unit not documented upstream). */
  balance: Scalars['Float']['output'];
  /** Opaque bank account identifier (the id its transactions are read by). */
  id: Scalars['ID']['output'];
  /** The owner's note on the account, or null. */
  note?: Maybe<Scalars['String']['output']>;
  /** A page of the account's transactions. Source: GET /factory/transactions/{bankId}/{limit}/{skip}. Scopes: factory, factory.bankaccount. Premium only. Bounds: limit 1..25, skip 0..200. */
  transactions?: Maybe<TransactionPage>;
  /** The account's VBAN, always as a string (the upstream sometimes sends a number). */
  vban: Scalars['String']['output'];
};


/** A bank account of a company. Source: GET /factory/bankaccounts/{id} (premium only). */
export type FactoryBankAccountTransactionsArgs = {
  limit?: Scalars['Int']['input'];
  skip?: Scalars['Int']['input'];
};

/** One free-text option slot of a company (ten per company). Option data has no effect on the game; it is meant for external company websites. */
export type FactoryOption = {
  __typename?: 'FactoryOption';
  /** Data, at most 2400 characters. */
  data: Scalars['String']['output'];
  /** When the slot was last written (the upstream field lastUpdated; records that say lastUpdate are read too). */
  lastUpdated?: Maybe<Scalars['DateTimeISO']['output']>;
  /** Slot number, slot 1..10 (the upstream calls it option). */
  slot: Scalars['Int']['output'];
  /** Title, at most 64 characters. */
  title: Scalars['String']['output'];
};

/** An option slot of a company was written or cleared. */
export type FactoryOptionChange = {
  __typename?: 'FactoryOptionChange';
  /** The company. */
  factoryId: Scalars['ID']['output'];
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The slot after the change; null when it was cleared or is no longer set. */
  option?: Maybe<FactoryOption>;
  /** The slot, 1..10 (at most the gateway's OPTION_SLOTS setting). */
  slot: Scalars['Int']['output'];
};

/** An available import auction. Source: GET /market/import (premium only). */
export type ImportAuction = Auction & {
  __typename?: 'ImportAuction';
  /** When the auction ends (ISO 8601). */
  auctionEnd: Scalars['DateTimeISO']['output'];
  /** Current bid amount. */
  bidAmount: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Opaque auction identifier. */
  id: Scalars['ID']['output'];
  /** Item auctioned. */
  item: Scalars['String']['output'];
};

/** The contents of a company store or of all its machine stores. An empty store is returned as totalWeight 0 and no items (the upstream answers 404 "… is empty"). */
export type Inventory = {
  __typename?: 'Inventory';
  /** The stored items. */
  items: Array<InventoryItem>;
  /** Total weight of the store's contents. */
  totalWeight: Scalars['Float']['output'];
};

/** A change of a company store, found by one poll. */
export type InventoryChange = {
  __typename?: 'InventoryChange';
  /** One entry per item whose summed amount changed; before 0 = new item, after 0 = item gone. */
  changes: Array<ItemAmountChange>;
  /** The company. */
  factoryId: Scalars['ID']['output'];
  /** The store after the change. */
  inventory: Inventory;
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** Which store changed. */
  store: InventoryKind;
};

/** One kind of item in a company store or machine store. */
export type InventoryItem = {
  __typename?: 'InventoryItem';
  /** How many units are stored. */
  amount: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Item name. */
  item: Scalars['String']['output'];
  /** Weight of one unit (unit not documented upstream). */
  singleWeight: Scalars['Float']['output'];
  /** Weight of all units of this item (amount × singleWeight). */
  totalWeight: Scalars['Float']['output'];
};

/** A store of a company: the normal store or all machine stores together. */
export type InventoryKind =
  /** GET /factory/machine/{id} */
  | 'MACHINE'
  /** GET /factory/inventory/{id} */
  | 'STORE';

/** A named quantity of an item: a production ingredient or a line of a buy log entry. */
export type ItemAmount = {
  __typename?: 'ItemAmount';
  /** How many of the item (units are not documented upstream). */
  amount: Scalars['Float']['output'];
  /** Item name, as the game spells it (e.g. Eisenbarren). */
  name: Scalars['String']['output'];
};

/** One item of a store whose summed amount (all stacks of the item together) changed. */
export type ItemAmountChange = {
  __typename?: 'ItemAmountChange';
  /** Summed amount after, in the item's units; 0 when the item is gone. */
  after: Scalars['Float']['output'];
  /** Summed amount before, in the item's units; 0 for a new item. */
  before: Scalars['Float']['output'];
  /** after - before, rounded to 6 decimals. */
  delta: Scalars['Float']['output'];
  /** Item name (the identity of the item in a store). */
  item: Scalars['String']['output'];
};

/** A buy offer of the company on the market. */
export type MarketOfferBuy = {
  __typename?: 'MarketOfferBuy';
  /** Units still available. */
  availableAmount: Scalars['Float']['output'];
  /** When the offer was created (ISO 8601). */
  createdAt: Scalars['DateTimeISO']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Item name. */
  item: Scalars['String']['output'];
  /** The item's list price; null when the upstream leaves it out (seen in community clients). */
  listPrice?: Maybe<Scalars['Float']['output']>;
  /** Price per unit. */
  pricePerUnit: Scalars['Float']['output'];
  /** Price of the whole offer. */
  totalPrice: Scalars['Float']['output'];
};

/** A sell offer of the company on the market. */
export type MarketOfferSell = {
  __typename?: 'MarketOfferSell';
  /** Units still available. */
  availableAmount: Scalars['Float']['output'];
  /** When the offer was created (ISO 8601). */
  createdAt: Scalars['DateTimeISO']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Item name. */
  item: Scalars['String']['output'];
  /** Price per unit. */
  pricePerUnit: Scalars['Float']['output'];
  /** Price of the whole offer. */
  totalPrice: Scalars['Float']['output'];
};

/** One incoming bank transfer the gateway saw on a company account (from GET /factory/transactions/{bankId}/25/{skip}; premium, scopes factory and factory.bankaccount). */
export type MatchedTransfer = {
  __typename?: 'MatchedTransfer';
  /** The amount transferred, as BankTransaction.amount. */
  amount: Scalars['Float']['output'];
  /** The reference text as the payer wrote it, or null. */
  reference?: Maybe<Scalars['String']['output']>;
  /** VBAN of the payer's account, or null. */
  senderVban?: Maybe<Scalars['String']['output']>;
  /** When the transfer was booked upstream. */
  timestamp: Scalars['DateTimeISO']['output'];
};

/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type Mutation = {
  __typename?: 'Mutation';
  /** Cancels a PENDING or PARTIALLY_PAID request of the caller's character (CANCELLED; transfers that arrive later are listed by unmatchedTransfers). Unknown reference: NOT_FOUND; a request no longer open: CONFLICT. No upstream request of its own (resuming the polling of the caller's open requests may poll). */
  cancelPaymentRequest: PaymentRequest;
  /** Creates a payment request with a fresh reference; no upstream request beyond reading the account's vban (cached). Reads GET /factory/bankaccounts/{id} (premium; scopes factory and factory.bankaccount; cached) to check the account and its vban. Without premium or those scopes: the same errors as BankAccount.transactions, and nothing is stored. Amount greater than 0; expiresInSeconds 1..31536000; note at most 200 characters (else BAD_USER_INPUT). At most PAYMENT_OPEN_REQUESTS_MAX (default 1000) open requests per company: one more is CONFLICT until one is paid, expires or is cancelled. From then on the account is polled (GET /factory/transactions/{bankId}/25/0, shared with transactionAdded) while it has open requests. */
  createPaymentRequest: PaymentRequest;
  /** Removes a site document and frees its slots: clears the committing slot first (the document is gone at once), then the chunk slots and the chunks its earlier versions left behind (freed by later commits but not written), each with "." as clients clear slots (Source: POST /factory/options. Scopes: factory, factory.options.edit. Not premium-only. the API secret from input.apiSecret or the X-Api-Secret header). Slots written by anything else are never touched. Checked before any upstream request like setSiteDocument. */
  deleteSiteDocument: DeleteSiteDocumentPayload;
  /** Writes a site document into the company's option slots (Source: POST /factory/options. Scopes: factory, factory.options.edit. Not premium-only. one request per slot written; the API secret from input.apiSecret or the X-Api-Secret header). Reads every slot first (GET /factory/options/{id}/{slot}, through the cache) so that slots written by anything else are never touched. Copy-on-write: changed chunks go into free slots (never set or cleared ones first), the committing slot is written last; a failure part-way leaves the previous version readable. The replaced chunks are not written again: the commit frees them (no manifest lists them; siteDocumentCapacity counts them free and a later write reuses them), so a change takes one write per changed chunk plus one. An unchanged value takes no write. Writes are paced by the key's budget; what does not finish within the request's patience (UPSTREAM_PATIENCE_MS, or Prefer: wait=N) goes on in the background (committed: false, retryAfterSeconds). Name, value size (SITE_DOCUMENT_MAX_BYTES) and secret are checked before any upstream request (BAD_USER_INPUT), and so is a value that cannot fit the slots at all (SITE_DOCUMENT_TOO_LARGE). */
  setSiteDocument: SetSiteDocumentPayload;
  /** Writes one free-text option slot of an owned company. Source: POST /factory/options. Scopes: factory, factory.options.edit. Not premium-only. The write goes ahead of the key's background work and takes the next request its budget allows; when that is later than the request's patience, it answers committed: false with retryAfterSeconds and the write goes on. The API secret comes from input.apiSecret or the X-Api-Secret request header (without either: BAD_USER_INPUT). Bounds: slot 1..10, title at most 64 characters, data at most 2400 characters. Checked before any upstream request. */
  updateFactoryOption: UpdateFactoryOptionPayload;
};


/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type MutationCancelPaymentRequestArgs = {
  reference: Scalars['String']['input'];
};


/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type MutationCreatePaymentRequestArgs = {
  input: CreatePaymentRequestInput;
};


/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type MutationDeleteSiteDocumentArgs = {
  input: DeleteSiteDocumentInput;
};


/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type MutationSetSiteDocumentArgs = {
  input: SetSiteDocumentInput;
};


/** The one write of the StateV API, updating a company's free-text option slot, and the site documents built on it. */
export type MutationUpdateFactoryOptionArgs = {
  input: UpdateFactoryOptionInput;
};

/** One of the character's import or export auctions. */
export type MyAuction = MyExportAuction | MyImportAuction;

/** An export auction of the character. Source: GET /market/my/auctions/export. */
export type MyExportAuction = Auction & {
  __typename?: 'MyExportAuction';
  /** Units auctioned. */
  amount: Scalars['Float']['output'];
  /** When the auction ends (ISO 8601). */
  auctionEnd: Scalars['DateTimeISO']['output'];
  /** Current bid amount. */
  bidAmount: Scalars['Float']['output'];
  /** Duration of the auction (unit not documented upstream), or null. */
  duration?: Maybe<Scalars['Float']['output']>;
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Opaque auction identifier. */
  id: Scalars['ID']['output'];
  /** Whether the character placed the last bid. */
  isLastBidderMe: Scalars['Boolean']['output'];
  /** Item auctioned. */
  item: Scalars['String']['output'];
  /** Weight of one unit. */
  singleWeight: Scalars['Float']['output'];
  /** Weight of all units. */
  totalWeight: Scalars['Float']['output'];
};

/** An import auction of the character. Source: GET /market/my/auctions/import. */
export type MyImportAuction = Auction & {
  __typename?: 'MyImportAuction';
  /** When the auction ends (ISO 8601). */
  auctionEnd: Scalars['DateTimeISO']['output'];
  /** Current bid amount. */
  bidAmount: Scalars['Float']['output'];
  /** Icon URL; a URL only with premium access, else null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Opaque auction identifier. */
  id: Scalars['ID']['output'];
  /** Whether the character placed the last bid. */
  isLastBidderMe: Scalars['Boolean']['output'];
  /** Item auctioned. */
  item: Scalars['String']['output'];
};

/** A change of a payment request's status. */
export type PaymentEvent = {
  __typename?: 'PaymentEvent';
  /** The status the request moved to. */
  kind: PaymentEventKind;
  /** When the gateway saw the change (the poll that found the transfer, or the expiry). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The request after the change. */
  request: PaymentRequest;
};

/** The status a payment request moved to. */
export type PaymentEventKind =
  /** expiresAt passed before the request was paid. */
  | 'EXPIRED'
  /** The sum went above the amount. */
  | 'OVERPAID'
  /** The sum reached the amount exactly. */
  | 'PAID'
  /** A transfer matched, the sum is still below the amount. */
  | 'PARTIALLY_PAID';

/** An amount a company expects on one of its bank accounts, identified by a reference the payer writes in the transfer. */
export type PaymentRequest = {
  __typename?: 'PaymentRequest';
  /** The amount asked for, greater than 0. */
  amount: Scalars['Float']['output'];
  /** The company bank account (BankAccount.id) the transfer goes to. */
  bankAccountId: Scalars['ID']['output'];
  /** When the request was created. */
  createdAt: Scalars['DateTimeISO']['output'];
  /** When the request expires unless paid, or null (never). */
  expiresAt?: Maybe<Scalars['DateTimeISO']['output']>;
  /** The company (Factory.id) the request is for. */
  factoryId: Scalars['ID']['output'];
  /** The note given at creation (at most 200 characters), or null; never sent upstream. */
  note?: Maybe<Scalars['String']['output']>;
  /** The sum of the matched transfers. */
  paidAmount: Scalars['Float']['output'];
  /** The reference to put in the transfer: short, case-insensitive, with a check character (no 0/O/1/I/L). */
  reference: Scalars['String']['output'];
  /** When status became PAID or OVERPAID. */
  settledAt?: Maybe<Scalars['DateTimeISO']['output']>;
  /** Where the request stands (see PaymentStatus). */
  status: PaymentStatus;
  /** The transfers matched to this request, oldest first, each counted once. */
  transfers: Array<MatchedTransfer>;
  /** The VBAN to pay to (the bank account's vban). */
  vban: Scalars['String']['output'];
};

/** Where a payment request stands: PENDING (nothing matched), PARTIALLY_PAID (less than the amount), PAID (exactly the amount), OVERPAID (more), EXPIRED (expiresAt passed before it was paid), CANCELLED (cancelPaymentRequest). */
export type PaymentStatus =
  /** Cancelled by cancelPaymentRequest; later transfers are listed as unmatched. */
  | 'CANCELLED'
  /** expiresAt passed while the request was PENDING or PARTIALLY_PAID. */
  | 'EXPIRED'
  /** Matched transfers add up to more than the amount. */
  | 'OVERPAID'
  /** Matched transfers add up to the amount (to the cent). */
  | 'PAID'
  /** Matched transfers add up to less than the amount. */
  | 'PARTIALLY_PAID'
  /** No transfer matched yet. */
  | 'PENDING';

/** A production (recipe) of the company: the item made and the items it needs. */
export type Production = {
  __typename?: 'Production';
  /** Icon URL of the produced item, or null. */
  icon?: Maybe<Scalars['String']['output']>;
  /** Name of the produced item. */
  itemName: Scalars['String']['output'];
  /** The items one production run needs. */
  neededItems: Array<ItemAmount>;
};

/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type Query = {
  __typename?: 'Query';
  /** One owned building, or null when the character does not own it. Read from the building list: Source: GET /building/list. Scopes: building. Not premium-only. */
  building?: Maybe<Building>;
  /** Buildings owned directly by the key's character. Source: GET /building/list. Scopes: building. Not premium-only. */
  buildings?: Maybe<Array<Building>>;
  /** Available export auctions for the character's company types. Source: GET /market/export. Scopes: market. Premium only. Without premium: FORBIDDEN with premium: true. */
  exportAuctions?: Maybe<Array<ExportAuction>>;
  /** Companies owned by the key's character (not those it is only employed at). Source: GET /factory/list/. Scopes: factory (optional: factory.details). Not premium-only. isOpen, type and address need factory.details. */
  factories?: Maybe<Array<Factory>>;
  /** One owned company, or null when the character does not own it. Read from the company list: Source: GET /factory/list/. Scopes: factory (optional: factory.details). Not premium-only. */
  factory?: Maybe<Factory>;
  /** Available import auctions for the character's company types. Source: GET /market/import. Scopes: market. Premium only. Without premium: FORBIDDEN with premium: true. */
  importAuctions?: Maybe<Array<ImportAuction>>;
  /** The character's export auctions, released for its company types. Source: GET /market/my/auctions/export. Scopes: factory, market. Not premium-only. */
  myExportAuctions?: Maybe<Array<MyExportAuction>>;
  /** The character's import auctions, released for its company types. Source: GET /market/my/auctions/import. Scopes: factory, market. Not premium-only. */
  myImportAuctions?: Maybe<Array<MyImportAuction>>;
  /** One payment request of the caller's character by reference (case and look-alike characters tolerated); null if unknown. Read from the gateway's store; resuming the polling of the caller's open requests may poll GET /factory/transactions/{bankId}/25/0. A request whose account received more transfers between two polls than the upstream shows (25 + skip 200) has a WINDOW_OVERRUN warning in extensions.warnings. */
  paymentRequest?: Maybe<PaymentRequest>;
  /** The payment requests of one company of the caller's character, newest first. Checks the company with Source: GET /factory/list/. Scopes: factory (optional: factory.details). Not premium-only. (cached); a company the character does not own: NOT_FOUND. WINDOW_OVERRUN warnings in extensions.warnings as for paymentRequest. */
  paymentRequests: Array<PaymentRequest>;
  /** Incoming transfers of the company's accounts seen by the gateway that match no request, newest first (the last 100, from the first request on each account on). Checks the company with Source: GET /factory/list/. Scopes: factory (optional: factory.details). Not premium-only. (cached). When more transfers arrived between two polls than the upstream shows (25 + skip 200), transfers may be missing: extensions.warnings has WINDOW_OVERRUN for that account. */
  unmatchedTransfers: Array<MatchedTransfer>;
  /** The caller: kind, characters and grants. Needs no upstream request. */
  viewer: Viewer;
};


/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type QueryBuildingArgs = {
  id: Scalars['ID']['input'];
};


/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type QueryFactoryArgs = {
  id: Scalars['ID']['input'];
};


/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type QueryPaymentRequestArgs = {
  reference: Scalars['String']['input'];
};


/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type QueryPaymentRequestsArgs = {
  factoryId: Scalars['ID']['input'];
  status?: InputMaybe<PaymentStatus>;
};


/** Read access to the StateV data of the character behind the bearer key: companies, buildings and auctions. Every field that needs its own upstream request is nullable, so one failing request nulls only that field. */
export type QueryUnmatchedTransfersArgs = {
  factoryId: Scalars['ID']['input'];
};

/** A room of a building. Source: GET /building/rooms/{id}. The upstream never names the tenant in a room; Room.tenant joins it from the tenant list. */
export type Room = {
  __typename?: 'Room';
  /** The building the room belongs to, from the building list (shared with Query.buildings in one operation). Source: GET /building/list. Scopes: building. Not premium-only. */
  building?: Maybe<Building>;
  /** Room hash. */
  hash: Scalars['String']['output'];
  /** Opaque room identifier. */
  id: Scalars['ID']['output'];
  /** Interior description. */
  interior: Scalars['String']['output'];
  /** Capacities of the room's storage furniture. */
  interiorDetails: RoomInteriorDetails;
  /** Interior image URL; a URL only with premium access, else null. */
  interiorImage?: Maybe<Scalars['String']['output']>;
  /** Room name. */
  name: Scalars['String']['output'];
  /** Whether the room is rented. */
  occupied: Scalars['Boolean']['output'];
  /** Rent of the room. */
  rent: Scalars['Float']['output'];
  /** The room's tenant, joined from the building's tenant list by roomId; null when vacant (no request is made for a vacant room). Source: GET /building/tenants/{id}. Scopes: building, building.tenants (optional: building.tenants.activity). Premium only. */
  tenant?: Maybe<Tenant>;
};

/** A room of a building that became occupied or free, or whose rent changed. */
export type RoomChange = {
  __typename?: 'RoomChange';
  /** The building (its upstream id). */
  buildingId: Scalars['ID']['output'];
  /** What happened. */
  kind: RoomChangeKind;
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The rent before (as Room.rent gives it), for RENT_CHANGED; else null. */
  previousRent?: Maybe<Scalars['Float']['output']>;
  /** The room after the change. */
  room: Room;
};

/** What happened to a room of a building. */
export type RoomChangeKind =
  /** The room was rented and is now free. */
  | 'FREED'
  /** The room was free and is now rented. */
  | 'OCCUPIED'
  /** The room's rent changed (previousRent holds the old one). */
  | 'RENT_CHANGED';

/** Capacities of a room's storage furniture. */
export type RoomInteriorDetails = {
  __typename?: 'RoomInteriorDetails';
  /** Inventory capacity. */
  inventoryCapacity: Scalars['Float']['output'];
  /** Kitchen capacity. */
  kitchenCapacity: Scalars['Float']['output'];
  /** Wardrobe capacity. */
  wardrobeCapacity: Scalars['Float']['output'];
};

/** Input of setSiteDocument. Checked before any upstream request: the name (1 to 32 characters: a-z, 0-9, '-', '_' and '.'), the value (JSON of at most SITE_DOCUMENT_MAX_BYTES bytes, canonical) and the secret. */
export type SetSiteDocumentInput = {
  /** The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT. */
  apiSecret?: InputMaybe<Scalars['String']['input']>;
  /** Write only if the stored version is this one (0: only if the document does not exist); omitted: no check. The committing slot is read again, bypassing the cache, before the first chunk is written and just before the commit; on a mismatch: CONFLICT with extensions.currentVersion, and no committing write. */
  expectedVersion?: InputMaybe<Scalars['Int']['input']>;
  /** The company whose option slots hold the document; must be owned by the key's character. */
  factoryId: Scalars['ID']['input'];
  /** The document's name, 1 to 32 characters: a-z, 0-9, '-', '_' and '.'. */
  name: Scalars['String']['input'];
  /** The JSON value; stored as canonical JSON (object keys sorted, no whitespace), at most SITE_DOCUMENT_MAX_BYTES UTF-8 bytes. */
  value: Scalars['JSON']['input'];
};

/** Result of setSiteDocument. */
export type SetSiteDocumentPayload = {
  __typename?: 'SetSiteDocumentPayload';
  /** True when the new version is committed (reads return it). False when the writes did not finish within the request's patience (UPSTREAM_PATIENCE_MS or Prefer: wait=N): they go on in the background. */
  committed: Scalars['Boolean']['output'];
  /** The document as written (or, while committed is false, as it will read once the write has finished). */
  document: SiteDocument;
  /** The version this write replaced (0: there was none), as read when the write was planned under the company's write lock: without expectedVersion, the version the later commit wins over. Equals document.version when the value was unchanged. */
  replacedVersion: Scalars['Int']['output'];
  /** While committed is false: seconds after which the write is expected to be committed (the key's budget paces it). Null when committed. */
  retryAfterSeconds?: Maybe<Scalars['Int']['output']>;
  /** Upstream option writes (POST /factory/options) this change took so far: one per changed chunk and one for the committing slot (the replaced chunks are freed by the commit, not written); 0 when the value was unchanged. */
  upstreamWrites: Scalars['Int']['output'];
};

/** A named JSON document a company website keeps in the company's option slots (written by setSiteDocument): chunks compressed into slots, committed by one manifest slot, checked by SHA-256 on every read. Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. See docs/site-documents.md. */
export type SiteDocument = {
  __typename?: 'SiteDocument';
  /** UTF-8 bytes of the canonical JSON text, before compression. */
  bytes: Scalars['Int']['output'];
  /** How the chunks are compressed and encoded, e.g. deflate-base64url (SITE_DOCUMENT_ENCODING at the time of the write). */
  encoding: Scalars['String']['output'];
  /** The committing slot: it holds the manifest and is written last. */
  manifestSlot: Scalars['Int']['output'];
  /** The document's name, 1 to 32 characters: a-z, 0-9, '-', '_' and '.'. */
  name: Scalars['String']['output'];
  /** Lower-case hex SHA-256 of the canonical JSON text; verified on every read. */
  sha256: Scalars['String']['output'];
  /** Option slots the document occupies: the committing slot first, then the chunks. */
  slots: Array<Scalars['Int']['output']>;
  /** When this version was written. */
  updatedAt?: Maybe<Scalars['DateTimeISO']['output']>;
  /** The JSON value, exactly as written (object keys in canonical, sorted order). Its chunks are read only when this field is selected (Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only.) and checked against the manifest's hashes and SHA-256: a mismatch is SITE_DOCUMENT_CORRUPT naming the slots, never a wrong value. */
  value?: Maybe<Scalars['JSON']['output']>;
  /** Starts at 1; each successful setSiteDocument adds 1. */
  version: Scalars['Int']['output'];
};

/** How much room the company's option slots have for site documents. Reads every slot (OPTION_SLOTS, through the cache). */
export type SiteDocumentCapacity = {
  __typename?: 'SiteDocumentCapacity';
  /** Slots site documents occupy now. */
  documentSlots: Array<Scalars['Int']['output']>;
  /** Bytes of canonical JSON text that still fit in the free slots for a new document (one free slot commits it), estimated at the bytes per slot measured on a realistic catalogue for the configured encoding: compression varies with the data. */
  estimatedFreeBytes: Scalars['Int']['output'];
  /** Slots written by something else (by hand, updateFactoryOption, another tool); the gateway never overwrites them. */
  foreignSlots: Array<Scalars['Int']['output']>;
  /** Option slots that hold neither a site document nor data written by something else: never set, cleared ("." or empty title and data), or a chunk no document lists any more (a replaced version's chunk is free from the commit that replaced it; it keeps its data until a write reuses it, which takes never-set and cleared slots first). */
  freeSlots: Array<Scalars['Int']['output']>;
};

/** A site document was written (a new version) or deleted, by this gateway or anything else. Carries the manifest, not the value: read Factory.siteDocument(name) { value } for it. */
export type SiteDocumentChange = {
  __typename?: 'SiteDocumentChange';
  /** The document now (version, updatedAt, bytes, slots); null when it was deleted. */
  document?: Maybe<SiteDocumentInfo>;
  /** The company. */
  factoryId: Scalars['ID']['output'];
  /** The document's name. */
  name: Scalars['String']['output'];
  /** When the gateway saw the change (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The version before the change; null when the document did not exist. */
  previousVersion?: Maybe<Scalars['Int']['output']>;
};

/** A site document as listed by Factory.siteDocuments (and the fields every SiteDocument has): its manifest only, the value is not read. */
export type SiteDocumentInfo = {
  __typename?: 'SiteDocumentInfo';
  /** UTF-8 bytes of the canonical JSON text, before compression. */
  bytes: Scalars['Int']['output'];
  /** The document's name, 1 to 32 characters: a-z, 0-9, '-', '_' and '.'. */
  name: Scalars['String']['output'];
  /** Option slots the document occupies: the committing slot first, then the chunks. */
  slots: Array<Scalars['Int']['output']>;
  /** When this version was written. */
  updatedAt?: Maybe<Scalars['DateTimeISO']['output']>;
  /** Starts at 1; each successful setSiteDocument adds 1. */
  version: Scalars['Int']['output'];
};

/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type Subscription = {
  __typename?: 'Subscription';
  /** Changes of a company's counter: items that appeared, disappeared, or changed amount or price. Source: GET /factory/counter/{id}. Scopes: factory, factory.counter. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 60 s by default (the freshness window CACHE_TTL_STOCK_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. */
  counterChanged: CounterChange;
  /** A company's option slot was written, or cleared; every slot (OPTION_SLOTS, default 10: one poll each per interval) when slot is omitted. Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 300 s by default (the freshness window CACHE_TTL_OPTIONS_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. The first poll also reads GET /factory/list/ to tell a company the key does not own (NOT_FOUND) from an unset slot. Bounds: slot 1..10. */
  factoryOptionChanged: FactoryOptionChange;
  /** Changes of a company's store or machine store. Polled within the key's upstream budget; one poll serves every subscriber of the key. Source: GET /factory/inventory/{id}. Scopes: factory, factory.inventory. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 60 s by default (the freshness window CACHE_TTL_STOCK_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. STORE reads GET /factory/inventory/{id}, MACHINE reads GET /factory/machine/{id} (same scopes and interval). */
  inventoryChanged: InventoryChange;
  /** Changes of the character's own import and export auctions (two polls per interval): Source: GET /market/my/auctions/import. Scopes: factory, market. Not premium-only. Source: GET /market/my/auctions/export. Scopes: factory, market. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 60 s by default (the freshness window CACHE_TTL_ACTIVITY_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. An access token over several characters watches every character's auctions, each with its own key (owner names the character); one key's failure is an error event naming it (extensions.character) and leaves the others' events. */
  myAuctionChanged: AuctionChange;
  /** Status changes of the company's payment requests (PARTIALLY_PAID, PAID, OVERPAID, EXPIRED), one event each per subscriber, polled within the key's budget (one poller per account, shared with transactionAdded). Accounts with open requests are polled at GET /factory/transactions/{bankId}/25/0 (premium; scopes factory and factory.bankaccount): Source: GET /factory/transactions/{bankId}/{limit}/{skip}. Scopes: factory, factory.bankaccount. Premium only. Polled once per key for every subscriber, within the key's upstream budget: every 60 s by default (the freshness window CACHE_TTL_ACTIVITY_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. Further pages (up to skip 200) only when the newest page shows that transfers were missed. A company the key's character does not own: NOT_FOUND. Counts against SUBSCRIPTIONS_MAX_PER_KEY and SUBSCRIPTIONS_MAX_PER_CONNECTION like every subscription (over: RATE_LIMITED). */
  paymentReceived: PaymentEvent;
  /** Rooms of a building that became occupied or free, or whose rent changed; one event per change. Source: GET /building/rooms/{id}. Scopes: building, building.rooms. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 300 s by default (the freshness window CACHE_TTL_DETAILS_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. */
  roomChanged: RoomChange;
  /** A site document got a new version or was deleted, by this gateway or anything else. Polls only the document's committing slot within the key's upstream budget (the first poll finds it from the name's home slot, and checks the company is owned with GET /factory/list/; while there is no document, every slot). Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. Polled once per key for every subscriber, within the key's upstream budget: every 300 s by default (the freshness window CACHE_TTL_OPTIONS_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. Name: 1 to 32 characters: a-z, 0-9, '-', '_' and '.', else BAD_USER_INPUT. */
  siteDocumentChanged: SiteDocumentChange;
  /** Transactions that appeared on one bank account (a company's or a building's), oldest first, one event each. Polls the newest page (limit 25): Source: GET /factory/transactions/{bankId}/{limit}/{skip}. Scopes: factory, factory.bankaccount. Premium only. Source: GET /building/transactions/{bankId}/{limit}/{skip}. Scopes: building, building.bankaccount. Premium only. Polled once per key for every subscriber, within the key's upstream budget: every 60 s by default (the freshness window CACHE_TTL_ACTIVITY_SECONDS), longer when the key's budget is short (the current interval is statev_subscription_poll_interval_seconds in /metrics). An event is sent only when something changed. Errors: UNAUTHENTICATED without a key; NOT_FOUND, FORBIDDEN (premium: true) or UPSTREAM_BAD_REQUEST (requiredScopes) from the first poll end the subscription; RATE_LIMITED over SUBSCRIPTIONS_MAX_PER_KEY or SUBSCRIPTIONS_MAX_PER_CONNECTION; after SUBSCRIPTION_ERROR_EVENTS_AFTER failed polls in a row an error event, the subscription staying open. The company endpoint is tried first, the building one when it does not know the account. Transactions have no id: the gateway recognises those it saw by content and position and never sends one twice. An access token over several characters polls with the key of the character whose company or building holds the account (found from each key's companies' and buildings' accounts, usually cached). */
  transactionAdded: TransactionAdded;
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionCounterChangedArgs = {
  factoryId: Scalars['ID']['input'];
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionFactoryOptionChangedArgs = {
  factoryId: Scalars['ID']['input'];
  slot?: InputMaybe<Scalars['Int']['input']>;
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionInventoryChangedArgs = {
  factoryId: Scalars['ID']['input'];
  store?: InventoryKind;
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionPaymentReceivedArgs = {
  factoryId: Scalars['ID']['input'];
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionRoomChangedArgs = {
  buildingId: Scalars['ID']['input'];
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionSiteDocumentChangedArgs = {
  factoryId: Scalars['ID']['input'];
  name: Scalars['String']['input'];
};


/** Change events the StateV API does not have: the gateway polls each resource once per key (for every subscriber, on every replica) within the key's upstream budget and sends an event only when something changed. Over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events (graphql-sse) at /graphql/stream; see docs/subscriptions.md. */
export type SubscriptionTransactionAddedArgs = {
  bankAccountId: Scalars['ID']['input'];
};

/** A tenant of a building. Source: GET /building/tenants/{id} (premium only). */
export type Tenant = {
  __typename?: 'Tenant';
  /** Last rent payment (ISO 8601). Only with scope building.tenants.activity, else null. */
  lastPayDate?: Maybe<Scalars['DateTimeISO']['output']>;
  /** The rented room, joined from the building's room list by roomId (shared with Building.rooms in one operation). Source: GET /building/rooms/{id}. Scopes: building, building.rooms. Not premium-only. */
  room?: Maybe<Room>;
  /** Hash of the rented room. */
  roomHash: Scalars['String']['output'];
  /** Identifier of the rented room. */
  roomId: Scalars['ID']['output'];
  /** Name of the rented room. */
  roomName: Scalars['String']['output'];
  /** Name of the tenant. */
  tenantName: Scalars['String']['output'];
};

/** A transaction that appeared on a bank account. */
export type TransactionAdded = {
  __typename?: 'TransactionAdded';
  /** The bank account (of a company or a building). */
  bankAccountId: Scalars['ID']['output'];
  /** When the gateway saw the transaction (the time of the poll that found it). */
  observedAt: Scalars['DateTimeISO']['output'];
  /** The new transaction. */
  transaction: BankTransaction;
};

/** One page of an account's transactions, as selected by limit and skip. */
export type TransactionPage = {
  __typename?: 'TransactionPage';
  /** Number of transactions of the account in total (not only on this page). */
  totalTransactions: Scalars['Int']['output'];
  /** The transactions of this page (ordering as the upstream returns it). */
  transactions: Array<BankTransaction>;
};

/** Input of updateFactoryOption. Source: POST /factory/options. Scopes: factory, factory.options.edit. Not premium-only. Bounds are checked before any upstream request. */
export type UpdateFactoryOptionInput = {
  /** The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT. */
  apiSecret?: InputMaybe<Scalars['String']['input']>;
  /** Data; data at most 2400 characters (a surrogate pair counts once). */
  data: Scalars['String']['input'];
  /** The company (factoryId) whose slot is written; must be owned by the key's character. */
  factoryId: Scalars['ID']['input'];
  /** Slot number; slot 1..10. */
  slot: Scalars['Int']['input'];
  /** Title; title at most 64 characters (a surrogate pair, e.g. an emoji, counts once). */
  title: Scalars['String']['input'];
};

/** Result of updateFactoryOption. */
export type UpdateFactoryOptionPayload = {
  __typename?: 'UpdateFactoryOptionPayload';
  /** True when the upstream took the write within the request's patience (UPSTREAM_PATIENCE_MS, or Prefer: wait=N). False: the key's budget had no room yet; the write stays queued ahead of the key's background work, goes upstream with the next request the budget allows, and retryAfterSeconds says when (message is then the gateway's, not the upstream's). */
  committed: Scalars['Boolean']['output'];
  /** The upstream's message, e.g. 'option was updated' (plain text or a JSON string, without quotes). */
  message: Scalars['String']['output'];
  /** The slot as it reads after the update; fetched only when selected. Source: GET /factory/options/{id}/{slot}. Scopes: factory, factory.options. Not premium-only. */
  option?: Maybe<FactoryOption>;
  /** When committed is false: seconds until the write is expected to reach the upstream, planned on the key's budget behind the writes queued before it. Null once committed. */
  retryAfterSeconds?: Maybe<Scalars['Int']['output']>;
};

/** A vehicle whose dealership (carShop) is the company. */
export type Vehicle = {
  __typename?: 'Vehicle';
  /** Distance driven, in whole metres. */
  distance: Scalars['Int']['output'];
  /** Engine description. */
  engine: Scalars['String']['output'];
  /** Image URL; a URL only with premium access, else null. */
  image?: Maybe<Scalars['String']['output']>;
  /** Vehicle model name. */
  name: Scalars['String']['output'];
  /** Number plate. */
  numberPlate: Scalars['String']['output'];
};

/** Who is calling, and what they may do. Answered without any upstream request. */
export type Viewer = {
  __typename?: 'Viewer';
  /** The characters whose data this caller reads: the vault entries a token covers, or the caller's own key (none without a key). */
  characters: Array<Character>;
  /** When the token stops working; null for a key. */
  expiresAt?: Maybe<Scalars['DateTimeISO']['output']>;
  /** The token's grants as written when it was created (e.g. "read", "factory:<id>", "write:siteDocument:catalogue"); empty for a key. */
  grants: Array<Scalars['String']['output']>;
  /** KEY for a StateV API key sent by the caller, TOKEN for a gateway access token. */
  kind: ViewerKind;
  /** The token's id (never the token itself); null for a key. */
  tokenId?: Maybe<Scalars['ID']['output']>;
};

/** What the caller sent in Authorization: a StateV API key or a gateway access token. */
export type ViewerKind =
  /** A StateV API key sent by the caller (or the server's key in public-site mode). */
  | 'KEY'
  /** A gateway access token (svg_…), whose characters' keys are in the vault. */
  | 'TOKEN';

export type LiveCompanyPageQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type LiveCompanyPageQuery = { __typename?: 'Query', factory?: { __typename?: 'Factory', id: string, name: string, isOpen?: boolean | null, type?: string | null, inventory?: { __typename?: 'Inventory', totalWeight: number, items: Array<{ __typename?: 'InventoryItem', item: string, amount: number }> } | null, catalogue?: { __typename?: 'SiteDocument', version: number, updatedAt?: string | null, value?: unknown | null } | null, counter?: { __typename?: 'Counter', items: Array<{ __typename?: 'CounterItem', item: string, price: number, amount: number }> } | null, sellOffers?: Array<{ __typename?: 'MarketOfferSell', item: string, pricePerUnit: number, availableAmount: number }> | null, buyOffers?: Array<{ __typename?: 'MarketOfferBuy', item: string, pricePerUnit: number, listPrice?: number | null }> | null, vehicles?: Array<{ __typename?: 'Vehicle', name: string, numberPlate: string, distance: number, engine: string }> | null } | null };

export type CompanyPageQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type CompanyPageQuery = { __typename?: 'Query', factory?: { __typename?: 'Factory', id: string, name: string, isOpen?: boolean | null, type?: string | null, inventory?: { __typename?: 'Inventory', totalWeight: number, items: Array<{ __typename?: 'InventoryItem', item: string, amount: number }> } | null, catalogue?: { __typename?: 'SiteDocument', version: number, updatedAt?: string | null, value?: unknown | null } | null, counter?: { __typename?: 'Counter', items: Array<{ __typename?: 'CounterItem', item: string, price: number, amount: number }> } | null, sellOffers?: Array<{ __typename?: 'MarketOfferSell', item: string, pricePerUnit: number, availableAmount: number }> | null, buyOffers?: Array<{ __typename?: 'MarketOfferBuy', item: string, pricePerUnit: number, listPrice?: number | null }> | null, vehicles?: Array<{ __typename?: 'Vehicle', name: string, numberPlate: string, distance: number, engine: string }> | null } | null };


export const LiveCompanyPageDocument = {"__meta__":{"hash":"f501c9e87038e1c5a3916a68457beaac83aa66b6a9e931e6908576f089a93f9d"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"LiveCompanyPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"directives":[{"kind":"Directive","name":{"kind":"Name","value":"live"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"factory"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"isOpen"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalWeight"}},{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"catalogue"},"name":{"kind":"Name","value":"siteDocument"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"catalogue","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"counter"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"sellOffers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerUnit"}},{"kind":"Field","name":{"kind":"Name","value":"availableAmount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"buyOffers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerUnit"}},{"kind":"Field","name":{"kind":"Name","value":"listPrice"}}]}},{"kind":"Field","name":{"kind":"Name","value":"vehicles"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"numberPlate"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"engine"}}]}}]}}]}}]} as unknown as DocumentNode<LiveCompanyPageQuery, LiveCompanyPageQueryVariables>;
export const CompanyPageDocument = {"__meta__":{"hash":"52c12721d9c2bbca141002c88d46e606361844dc69afd8ac5e2fe0474ccc62d0"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CompanyPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"factory"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"isOpen"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"inventory"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalWeight"}},{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"catalogue"},"name":{"kind":"Name","value":"siteDocument"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"name"},"value":{"kind":"StringValue","value":"catalogue","block":false}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"counter"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"items"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"sellOffers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerUnit"}},{"kind":"Field","name":{"kind":"Name","value":"availableAmount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"buyOffers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"item"}},{"kind":"Field","name":{"kind":"Name","value":"pricePerUnit"}},{"kind":"Field","name":{"kind":"Name","value":"listPrice"}}]}},{"kind":"Field","name":{"kind":"Name","value":"vehicles"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"numberPlate"}},{"kind":"Field","name":{"kind":"Name","value":"distance"}},{"kind":"Field","name":{"kind":"Name","value":"engine"}}]}}]}}]}}]} as unknown as DocumentNode<CompanyPageQuery, CompanyPageQueryVariables>;