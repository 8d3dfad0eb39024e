/**
 * What the economy must know of a company's option slots (`GET /factory/options/{id}/{slot}`
 * and `POST /factory/options`), registered with the economy's endpoint rules: a write of a
 * slot changes that slot of its company (here, in the shared cache and on every replica),
 * and a slot read is never served as fresh while this replica may have missed another
 * replica's write.
 */
import { buildPath, ENDPOINTS, MAX_OPTION_SLOTS } from '../../upstream/endpoints';
import { registerEndpointRules } from '../shared/endpoint-rules';

/**
 * The scope of an option write: `<factoryId>/<slot>` for the one slot its body names (the
 * upstream updates only "the slot given by option of the given company"), the company id
 * alone when the body names no valid slot (then every slot of the company), or null.
 */
function writtenScope(body: unknown): string | null {
  const { factoryId, option } = (body && typeof body === 'object' ? body : {}) as {
    factoryId?: unknown;
    option?: unknown;
  };
  if (typeof factoryId !== 'string') return null;
  return typeof option === 'number' && Number.isInteger(option) && option >= 1 && option <= MAX_OPTION_SLOTS
    ? `${factoryId}/${option}`
    : factoryId;
}

/** Paths of the option slot reads a write's scope changes: the one slot of `<factoryId>/<slot>`, or every slot of a company (all that any `OPTION_SLOTS` setting reads). Company ids hold no `/`. */
function optionPaths(scope: string): string[] {
  const slash = scope.indexOf('/');
  if (slash >= 0)
    return [buildPath(ENDPOINTS.factoryOption, { id: scope.slice(0, slash), slot: Number(scope.slice(slash + 1)) })];
  return Array.from({ length: MAX_OPTION_SLOTS }, (_, i) =>
    buildPath(ENDPOINTS.factoryOption, { id: scope, slot: i + 1 }),
  );
}

// Another replica may have written a slot while Redis was away: its cached read is then never fresh.
registerEndpointRules({ endpoint: ENDPOINTS.factoryOption, changedByWrites: true });
// A slot write forgets that slot's read of the company its body names, here, in the shared cache and on every replica.
registerEndpointRules({ endpoint: ENDPOINTS.factoryOptionUpdate, writeScope: writtenScope, scopeReads: optionPaths });
