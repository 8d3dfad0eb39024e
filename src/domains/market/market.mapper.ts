/** Mappers from the market endpoints' JSON (`unknown`) to offers and auctions. */
import { JsonObject, mapArray } from '../shared/narrow';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';

function sellOffer(o: JsonObject): MarketOfferSell {
  return {
    item: o.string('item'),
    pricePerUnit: o.number('pricePerUnit'),
    totalPrice: o.number('totalPrice'),
    availableAmount: o.number('availableAmount'),
    createdAt: o.date('createdAt'),
    icon: o.optionalString('icon'),
  };
}

/** `GET /factory/marketoffers/sell/{id}` → sell offers. */
export function mapSellOffers(body: unknown): MarketOfferSell[] {
  return mapArray(body, (element, path) => sellOffer(JsonObject.of(element, path)));
}

/** `GET /factory/marketoffers/buy/{id}` → buy offers. */
export function mapBuyOffers(body: unknown): MarketOfferBuy[] {
  return mapArray(body, (element, path) => {
    const o = JsonObject.of(element, path);
    return { ...sellOffer(o), listPrice: o.number('listPrice') };
  });
}

function auction(a: JsonObject): ImportAuction {
  return {
    id: a.stringish('id'),
    item: a.string('item'),
    bidAmount: a.number('bidAmount'),
    auctionEnd: a.date('auctionEnd'),
    icon: a.optionalString('icon'),
  };
}

/** `GET /market/my/auctions/import` → the character's import auctions. */
export function mapMyImportAuctions(body: unknown): MyImportAuction[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return { ...auction(a), isLastBidderMe: a.boolean('isLastBidderMe') };
  });
}

/** `GET /market/my/auctions/export` → the character's export auctions. */
export function mapMyExportAuctions(body: unknown): MyExportAuction[] {
  return mapArray(body, (element, path) => {
    const a = JsonObject.of(element, path);
    return {
      ...auction(a),
      isLastBidderMe: a.boolean('isLastBidderMe'),
      amount: a.number('amount'),
      singleWeight: a.number('singleWeight'),
      totalWeight: a.number('totalWeight'),
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
    return { ...auction(a), amount: a.number('amount'), weight: a.number('weight'), duration: a.number('duration') };
  });
}
