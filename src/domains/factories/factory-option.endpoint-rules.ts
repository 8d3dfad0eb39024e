/**
 * What the economy must know of a company's option slots (`GET /factory/options/{id}/{slot}`
 * and `POST /factory/options`), registered with the economy's endpoint rules: a write of a
 * slot changes every slot of its company (here, in the shared cache and on every replica),
 * and a slot read is never served as fresh while this replica may have missed another
 * replica's write.
 */
import { buildPath, ENDPOINTS, MAX_OPTION_SLOTS } from '../../upstream/endpoints';
import { registerEndpointRules } from '../shared/endpoint-rules';

/** The company an option write names (`factoryId` of its body), or null: the write's scope. */
function writtenFactoryId(body: unknown): string | null {
  const value = body && typeof body === 'object' ? (body as { factoryId?: unknown }).factoryId : undefined;
  return typeof value === 'string' ? value : null;
}

/** Paths of every option slot of one company (all that any `OPTION_SLOTS` setting reads). */
function optionPaths(factoryId: string): string[] {
  return Array.from({ length: MAX_OPTION_SLOTS }, (_, i) => buildPath(ENDPOINTS.factoryOption, { id: factoryId, slot: i + 1 }));
}

// Another replica may have written a slot while Redis was away: its cached read is then never fresh.
registerEndpointRules({ endpoint: ENDPOINTS.factoryOption, changedByWrites: true });
// A slot write forgets every slot read of the company its body names, here, in the shared cache and on every replica.
registerEndpointRules({ endpoint: ENDPOINTS.factoryOptionUpdate, writeScope: writtenFactoryId, scopeReads: optionPaths });
