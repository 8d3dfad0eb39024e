/**
 * Mappers from the market endpoints' JSON (`unknown`) to offers and auctions. Tolerant
 * like every mapper (see `narrow.ts`); the market's known drifts: `listPrice` missing
 * on buy offers (null) or present on sell offers (ignored), and "my" auctions without
 * `id` (a stable id derived from the auction's content, see {@link derivedAuctionId}).
 */
import { createHash } from 'node:crypto';
import { JsonObject, mapArray, noteDrift } from '../shared/narrow';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';

function sellOffer(o: JsonObject): MarketOfferSell {
  return {
    item: o.text('item'),
    pricePerUnit: o.numberOr('pricePerUnit'),
    totalPrice: o.numberOr('totalPrice'),
    availableAmount: o.numberOr('availableAmount'),
    createdAt: o.dateOr('createdAt'),
    icon: o.optionalString('icon'),
  };
}

/** `GET /factory/marketoffers/sell/{id}` → sell offers. */
export function mapSellOffers(body: unknown): MarketOfferSell[] {
  return mapArray(body, (element, path) => {
    const o = JsonObject.of(element, path);
    // The reference has no listPrice on sell offers; some upstreams send one: ignored, counted.
    if (o.has('listPrice')) noteDrift(`${o.path}.listPrice`);
    return sellOffer(o);
  });
}

/** `GET /factory/marketoffers/buy/{id}` → buy offers. */
export function mapBuyOffers(body: unknown): MarketOfferBuy[] {
  return mapArray(body, (element, path) => {
    const o = JsonObject.of(element, path);
    const listPrice = o.optionalNumber('listPrice');
    if (listPrice === null) noteDrift(`${o.path}.listPrice`);
    return { ...sellOffer(o), listPrice };
  });
}

function auction(a: JsonObject, id: string = a.stringish('id')): ImportAuction {
  return {
    id,
    item: a.text('item'),
    bidAmount: a.numberOr('bidAmount'),
    auctionEnd: a.dateOr('auctionEnd'),
    icon: a.optionalString('icon'),
  };
}

/**
 * The id of one of the character's own auctions: the upstream's `id`, or, where the
 * upstream leaves it out (drift), `derived-` and 24 hex digits of a SHA-256 over what
 * does not change while the auction runs (kind, item, end, amount, weights,
 * duration; not the bid). Stable across requests and replicas; two auctions equal in
 * all of that get the same id.
 */
export function derivedAuctionId(kind: 'import' | 'export', a: JsonObject): string {
  if (a.has('id')) return a.stringish('id');
  noteDrift(`${a.path}.id`);
  const content = [
    kind,
    a.raw('item'),
    a.raw('auctionEnd'),
    a.raw('amount'),
    a.raw('singleWeight'),
    a.raw('totalWeight'),
    a.raw('duration'),
  ];
  return `derived-${createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 24)}`;
}

/** `GET /market/my/auctions/import` → the character's import auctions. */
export function mapMyImportAuctions(body: unknown): MyImportAuction[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return { ...auction(a, derivedAuctionId('import', a)), isLastBidderMe: a.booleanOr('isLastBidderMe') };
  });
}

/** `GET /market/my/auctions/export` → the character's export auctions. */
export function mapMyExportAuctions(body: unknown): MyExportAuction[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return {
      ...auction(a, derivedAuctionId('export', a)),
      isLastBidderMe: a.booleanOr('isLastBidderMe'),
      amount: a.numberOr('amount'),
      singleWeight: a.numberOr('singleWeight'),
      totalWeight: a.numberOr('totalWeight'),
      duration: a.optionalNumber('duration'),
    };
  });
}

/** `GET /market/import` → available import auctions. */
export function mapImportAuctions(body: unknown): ImportAuction[] {
  return mapArray(body, (element, path) => auction(JsonObject.of(element, path)));
}

/** `GET /market/export` → available export auctions. */
export function mapExportAuctions(body: unknown): ExportAuction[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return {
      ...auction(a),
      amount: a.numberOr('amount'),
      weight: a.numberOr('weight'),
      duration: a.numberOr('duration'),
    };
  });
}
