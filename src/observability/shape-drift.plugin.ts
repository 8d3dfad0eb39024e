import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import { onShapeDrift } from '../domains/shared/shape-drift';
import type { GatewayMetrics } from './metrics';

/**
 * Drifts the field notes record as the upstream's own known variants (`endpoint field` →
 * what the upstream sends instead): still counted, but logged at `info`, not as a warning,
 * since they are no news to an operator (the simulator's sample data has them too, so
 * `npm run demo` would otherwise warn about its own simulator).
 */
export const KNOWN_VARIANTS: ReadonlyMap<string, string> = new Map([
  ['GET /factory/options/{id}/{slot} lastUpdated', 'lastUpdate, a legacy name some option slots still carry'],
]);

/**
 * Apollo plugin that, while the server runs, counts every upstream shape drift the
 * tolerant reader notes in `statev_upstream_shape_drift_total{endpoint,field}` and logs
 * a warning the first time each endpoint and field drifts, so an operator learns that
 * the upstream changed without a log line per response ({@link KNOWN_VARIANTS}: `info`).
 */
export function shapeDriftPlugin(metrics: GatewayMetrics, logger: Logger): ApolloServerPlugin {
  return {
    async serverWillStart() {
      const logged = new Set<string>();
      const unsubscribe = onShapeDrift((endpoint, field) => {
        metrics.shapeDrift.inc({ endpoint, field });
        const id = `${endpoint} ${field}`;
        if (logged.has(id)) return;
        logged.add(id);
        const known = KNOWN_VARIANTS.get(id);
        if (known)
          logger.info(
            { endpoint, field },
            `upstream response uses a known variant of the reference (${known}); read tolerantly (logged once per endpoint and field)`,
          );
        else
          logger.warn(
            { endpoint, field },
            'upstream response differs from the reference; read tolerantly (logged once per endpoint and field)',
          );
      });
      return {
        async serverWillStop() {
          unsubscribe();
        },
      };
    },
  };
}
