import type { UpstreamSession } from '../../economy';
import type { LoaderOptions , FetchLoader} from '../shared/loader';
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
    sellOffers: createFetchLoader(session, (s, id) => api.fetchSellOffers(s, id), options),
    buyOffers: createFetchLoader(session, (s, id) => api.fetchBuyOffers(s, id), options),
    myImportAuctions: createFetchLoader(session, (s) => api.fetchMyImportAuctions(s), options),
    myExportAuctions: createFetchLoader(session, (s) => api.fetchMyExportAuctions(s), options),
    importAuctions: createFetchLoader(session, (s) => api.fetchImportAuctions(s), options),
    exportAuctions: createFetchLoader(session, (s) => api.fetchExportAuctions(s), options),
  };
}

declare module '../shared/loader' {
  interface Loaders {
    /** The market loaders, created on first use in the operation. */
    market: MarketLoaders;
  }
}

registerLoaders('market', createMarketLoaders);
