/** The market endpoints: a company's offers and the auction lists, one function each. */
import { ENDPOINTS } from '../../upstream/endpoints';
import type { UpstreamSession } from '../../upstream/session';
import { mapResponse } from '../shared/narrow';
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
export async function fetchSellOffers(session: UpstreamSession, id: string): Promise<MarketOfferSell[]> {
  return mapResponse(ENDPOINTS.factorySellOffers, await session.get(ENDPOINTS.factorySellOffers, { id }), mapSellOffers);
}

/** `GET /factory/marketoffers/buy/{id}`. */
export async function fetchBuyOffers(session: UpstreamSession, id: string): Promise<MarketOfferBuy[]> {
  return mapResponse(ENDPOINTS.factoryBuyOffers, await session.get(ENDPOINTS.factoryBuyOffers, { id }), mapBuyOffers);
}

/** `GET /market/my/auctions/import`. */
export async function fetchMyImportAuctions(session: UpstreamSession): Promise<MyImportAuction[]> {
  return mapResponse(ENDPOINTS.myImportAuctions, await session.get(ENDPOINTS.myImportAuctions), mapMyImportAuctions);
}

/** `GET /market/my/auctions/export`. */
export async function fetchMyExportAuctions(session: UpstreamSession): Promise<MyExportAuction[]> {
  return mapResponse(ENDPOINTS.myExportAuctions, await session.get(ENDPOINTS.myExportAuctions), mapMyExportAuctions);
}

/** `GET /market/import` (premium only). */
export async function fetchImportAuctions(session: UpstreamSession): Promise<ImportAuction[]> {
  return mapResponse(ENDPOINTS.importAuctions, await session.get(ENDPOINTS.importAuctions), mapImportAuctions);
}

/** `GET /market/export` (premium only). */
export async function fetchExportAuctions(session: UpstreamSession): Promise<ExportAuction[]> {
  return mapResponse(ENDPOINTS.exportAuctions, await session.get(ENDPOINTS.exportAuctions), mapExportAuctions);
}
