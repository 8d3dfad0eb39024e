/** The market endpoints: a company's offers and the auction lists, one function each. */
import { ENDPOINTS } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../economy';
import { fetchMapped } from '../shared/fetch-mapped';
import type { MaybePromise } from '../shared/maybe-promise';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';
import {
  mapBuyOffers,
  mapExportAuctions,
  mapImportAuctions,
  mapMyExportAuctions,
  mapMyImportAuctions,
  mapSellOffers,
} from './market.mapper';

/** `GET /factory/marketoffers/sell/{id}`. */
export function fetchSellOffers(session: UpstreamSession, id: string): MaybePromise<MarketOfferSell[]> {
  return fetchMapped(session, ENDPOINTS.factorySellOffers, { id }, mapSellOffers);
}

/** `GET /factory/marketoffers/buy/{id}`. */
export function fetchBuyOffers(session: UpstreamSession, id: string): MaybePromise<MarketOfferBuy[]> {
  return fetchMapped(session, ENDPOINTS.factoryBuyOffers, { id }, mapBuyOffers);
}

/** `GET /market/my/auctions/import`. */
export function fetchMyImportAuctions(session: UpstreamSession): MaybePromise<MyImportAuction[]> {
  return fetchMapped(session, ENDPOINTS.myImportAuctions, undefined, mapMyImportAuctions);
}

/** `GET /market/my/auctions/export`. */
export function fetchMyExportAuctions(session: UpstreamSession): MaybePromise<MyExportAuction[]> {
  return fetchMapped(session, ENDPOINTS.myExportAuctions, undefined, mapMyExportAuctions);
}

/** `GET /market/import` (premium only). */
export function fetchImportAuctions(session: UpstreamSession): MaybePromise<ImportAuction[]> {
  return fetchMapped(session, ENDPOINTS.importAuctions, undefined, mapImportAuctions);
}

/** `GET /market/export` (premium only). */
export function fetchExportAuctions(session: UpstreamSession): MaybePromise<ExportAuction[]> {
  return fetchMapped(session, ENDPOINTS.exportAuctions, undefined, mapExportAuctions);
}
