/**
 * `npm run fuzz`: the schema-driven fuzzer of test/support/fuzz.ts, with more operations
 * than the test suite sends. Starts the simulator (no rate limit) and a gateway on free
 * ports, sends the operations, prints a JSON report and exits 1 when any answer was a 5xx,
 * carried INTERNAL_SERVER_ERROR, was not JSON, was slower than the bound, or the gateway
 * no longer answers `/healthz`.
 *
 *   npm run fuzz -- --count 20000 --seed 7 --concurrency 16 --bound-ms 10000
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { buildGatewaySchema } from '../src/graph/schema';
import { startGateway } from '../src/server';
import { startSimulator } from '../src/simulator';
import { runFuzz } from '../test/support/fuzz';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '20000' },
      seed: { type: 'string', default: String(Date.now() % 1_000_000) },
      concurrency: { type: 'string', default: '16' },
      'bound-ms': { type: 'string', default: '10000' },
    },
  });
  const simulator = await startSimulator({ rateLimit: 'off' });
  const config = loadConfig(
    {},
    {
      port: 0,
      host: '127.0.0.1',
      upstreamBaseUrl: simulator.baseUrl,
      logLevel: 'silent',
      cacheFile: null,
      upstreamRateLimit: null,
    },
  );
  const gateway = await startGateway(config);
  try {
    const seed = Number(values.seed);
    const started = performance.now();
    const report = await runFuzz({
      schema: await buildGatewaySchema(),
      endpoint: `${gateway.url}/graphql`,
      seed,
      count: Number(values.count),
      concurrency: Number(values.concurrency),
      boundMs: Number(values['bound-ms']),
    });
    const alive = (await fetch(`${gateway.url}/healthz`)).status === 200;
    const summary = {
      seed,
      sent: report.sent,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      byStatus: report.byStatus,
      slowestMs: Math.round(report.slowestMs),
      failures: report.failures.length,
      firstFailures: report.failures.slice(0, 10).map((failure) => ({
        problem: failure.problem,
        status: failure.status,
        query: failure.request.body.query.slice(0, 500),
      })),
      alive,
    };
    console.log(JSON.stringify(summary, null, 2));
    return report.failures.length === 0 && alive ? 0 : 1;
  } finally {
    await gateway.stop();
    await simulator.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
