/**
 * Public entry of the StateV REST API simulator: start it with {@link startSimulator}, read
 * the fixtures through {@link DEMO_KEYS} and {@link FIXTURE_IDS}.
 */
export { startSimulator } from './simulator';
export type { RateLimit, Simulator, SimulatorOptions, SimulatedRequest } from './simulator';
export { DEFAULT_RATE_LIMIT, describeRateLimit, parseRateLimit } from './rate-limit';
export {
  ALL_SCOPES,
  BASIC_SCOPES,
  DEMO_KEYS,
  FIXTURE_CHARACTERS,
  FIXTURE_IDS,
  FIXTURE_KEYS,
  FIXTURE_NOW,
  GENERATED_KEY_PATTERN,
  STATIC_URL,
  createFixtureState,
  generatedKey,
} from './fixtures';
export type { FixtureState, KeyPair, Scope, SimulatedApiKey } from './fixtures';
export { ChangeError, applyChange } from './live';
export type { LiveOptions, SimulatorChange } from './live';
export { PREMIUM_MESSAGE, SIMULATOR_ROUTES, THROTTLER_MESSAGE, UNKNOWN_ROUTE, dispatchApiRequest } from './routes';
export type { ApiEnvironment, ApiRequest, ApiResult, SimulatedRouteInfo } from './routes';
export type * from './upstream.types';
