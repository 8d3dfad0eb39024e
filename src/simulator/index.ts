/**
 * Public entry of the StateV REST API simulator: start it with {@link startSimulator}, read
 * the fixtures through {@link DEMO_KEYS} and {@link FIXTURE_IDS}.
 */
export { startSimulator } from './simulator';
export type { Simulator, SimulatorOptions } from './simulator';
export { realisticCatalogue, shopCatalogue } from './catalogue';
export { describeRateLimit } from './rate-limit';
export { ALL_SCOPES, DEMO_KEYS, DEMO_SITE_KEY, FIXTURE_CHARACTERS, FIXTURE_IDS, createFixtureState } from './fixtures';
export type { SimulatedApiKey } from './fixtures';
export { MERCHANT_IDS, MERCHANT_KEY } from './fixtures-merchant';
export { ChangeError, applyChange } from './live';
export { PREMIUM_MESSAGE } from './api-errors';
export { SIMULATOR_ROUTES } from './routes';
export type * from './upstream.types';
