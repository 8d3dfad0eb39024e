import type DataLoader from 'dataloader';
import type { UpstreamSession } from '../../upstream/session';
import { createFetchLoader } from '../shared/loader';
import * as api from './market.api';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';

/** The market loaders of one operation. The auction lists have the single key `'all'`. */
export interface MarketLoaders {
  sellOffers: DataLoader<string, MarketOfferSell[], string>;
  buyOffers: DataLoader<string, MarketOfferBuy[], string>;
  myImportAuctions: DataLoader<'all', MyImportAuction[], string>;
  myExportAuctions: DataLoader<'all', MyExportAuction[], string>;
  importAuctions: DataLoader<'all', ImportAuction[], string>;
  exportAuctions: DataLoader<'all', ExportAuction[], string>;
}

/** Creates the market loaders for one operation (context factory only). */
export function createMarketLoaders(session: UpstreamSession): MarketLoaders {
  return {
    sellOffers: createFetchLoader((id) => api.fetchSellOffers(session, id)),
    buyOffers: createFetchLoader((id) => api.fetchBuyOffers(session, id)),
    myImportAuctions: createFetchLoader(() => api.fetchMyImportAuctions(session)),
    myExportAuctions: createFetchLoader(() => api.fetchMyExportAuctions(session)),
    importAuctions: createFetchLoader(() => api.fetchImportAuctions(session)),
    exportAuctions: createFetchLoader(() => api.fetchExportAuctions(session)),
  };
}
