import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import { onShapeDrift } from '../domains/shared/shape-drift';
import type { GatewayMetrics } from './metrics';

/**
 * Apollo plugin that, while the server runs, counts every upstream shape drift the
 * tolerant reader notes in `statev_upstream_shape_drift_total{endpoint,field}` and logs
 * a warning the first time each endpoint and field drifts, so an operator learns that
 * the upstream changed without a log line per response.
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
        logger.warn({ endpoint, field }, 'upstream response differs from the reference; read tolerantly (logged once per endpoint and field)');
      });
      return {
        async serverWillStop() {
          unsubscribe();
        },
      };
    },
  };
}
