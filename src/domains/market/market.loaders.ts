import type DataLoader from 'dataloader';
import type { UpstreamSession } from '../../economy';
import type { LoaderOptions } from '../shared/loader';
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
export function createMarketLoaders(session: UpstreamSession, options: LoaderOptions): MarketLoaders {
  return {
    sellOffers: createFetchLoader((id) => api.fetchSellOffers(session, id), options),
    buyOffers: createFetchLoader((id) => api.fetchBuyOffers(session, id), options),
    myImportAuctions: createFetchLoader(() => api.fetchMyImportAuctions(session), options),
    myExportAuctions: createFetchLoader(() => api.fetchMyExportAuctions(session), options),
    importAuctions: createFetchLoader(() => api.fetchImportAuctions(session), options),
    exportAuctions: createFetchLoader(() => api.fetchExportAuctions(session), options),
  };
}
