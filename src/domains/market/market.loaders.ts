import type { UpstreamSession } from '../../economy';
import type { FetchLoader, LoaderOptions } from '../shared/loader';
import { createFetchLoader, registerLoaders } from '../shared/loader';
import * as api from './market.api';
import type { ExportAuction, ImportAuction, MyExportAuction, MyImportAuction } from './auction.type';
import type { MarketOfferBuy, MarketOfferSell } from './market-offer.type';

/** The market loaders of one operation. The auction lists have the single key `'all'`. */
export interface MarketLoaders {
  /** `GET /factory/marketoffers/sell/{id}` by company id: the company's sell offers. */
  sellOffers: FetchLoader<string, MarketOfferSell[]>;
  /** `GET /factory/marketoffers/buy/{id}` by company id: the company's buy offers. */
  buyOffers: FetchLoader<string, MarketOfferBuy[]>;
  /** `GET /market/my/auctions/import`, one key (`'all'`): the character's import auctions. */
  myImportAuctions: FetchLoader<'all', MyImportAuction[]>;
  /** `GET /market/my/auctions/export`, one key (`'all'`): the character's export auctions. */
  myExportAuctions: FetchLoader<'all', MyExportAuction[]>;
  /** `GET /market/import`, one key (`'all'`): open import auctions (premium-only upstream: rejects with FORBIDDEN without it). */
  importAuctions: FetchLoader<'all', ImportAuction[]>;
  /** `GET /market/export`, one key (`'all'`): open export auctions (premium-only upstream). */
  exportAuctions: FetchLoader<'all', ExportAuction[]>;
}

/** Creates the market loaders for one operation (context factory only). */
function createMarketLoaders(session: UpstreamSession, options: LoaderOptions): MarketLoaders {
  return {
    sellOffers: createFetchLoader(session, api.fetchSellOffers, options),
    buyOffers: createFetchLoader(session, api.fetchBuyOffers, options),
    myImportAuctions: createFetchLoader(session, api.fetchMyImportAuctions, options),
    myExportAuctions: createFetchLoader(session, api.fetchMyExportAuctions, options),
    importAuctions: createFetchLoader(session, api.fetchImportAuctions, options),
    exportAuctions: createFetchLoader(session, api.fetchExportAuctions, options),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The market loaders, created on first use in the operation. */
    market: MarketLoaders;
  }
}

registerLoaders('market', createMarketLoaders);
