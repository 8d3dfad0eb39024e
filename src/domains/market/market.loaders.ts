import type DataLoader from 'dataloader';
import type { UpstreamSession } from '../../economy';
import type { LoaderOptions } from '../shared/loader';
import { createFetchLoader, registerLoaders } from '../shared/loader';
import * as api from './market.api';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';

/** The market loaders of one operation. The auction lists have the single key `'all'`. */
export interface MarketLoaders {
  /** `GET /factory/marketoffers/sell/{id}` by company id: the company's sell offers. */
  sellOffers: DataLoader<string, MarketOfferSell[], string>;
  /** `GET /factory/marketoffers/buy/{id}` by company id: the company's buy offers. */
  buyOffers: DataLoader<string, MarketOfferBuy[], string>;
  /** `GET /market/my/auctions/import`, one key (`'all'`): the character's import auctions. */
  myImportAuctions: DataLoader<'all', MyImportAuction[], string>;
  /** `GET /market/my/auctions/export`, one key (`'all'`): the character's export auctions. */
  myExportAuctions: DataLoader<'all', MyExportAuction[], string>;
  /** `GET /market/import`, one key (`'all'`): open import auctions (premium-only upstream: rejects with FORBIDDEN without it). */
  importAuctions: DataLoader<'all', ImportAuction[], string>;
  /** `GET /market/export`, one key (`'all'`): open export auctions (premium-only upstream). */
  exportAuctions: DataLoader<'all', ExportAuction[], string>;
}

/** Creates the market loaders for one operation (context factory only). */
function createMarketLoaders(session: UpstreamSession, options: LoaderOptions): MarketLoaders {
  return {
    sellOffers: createFetchLoader((id) => api.fetchSellOffers(session, id), options),
    buyOffers: createFetchLoader((id) => api.fetchBuyOffers(session, id), options),
    myImportAuctions: createFetchLoader(() => api.fetchMyImportAuctions(session), options),
    myExportAuctions: createFetchLoader(() => api.fetchMyExportAuctions(session), options),
    importAuctions: createFetchLoader(() => api.fetchImportAuctions(session), options),
    exportAuctions: createFetchLoader(() => api.fetchExportAuctions(session), options),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The market loaders, created on first use in the operation. */
    market: MarketLoaders;
  }
}

registerLoaders('market', createMarketLoaders);
