/**
 * Traces over OTLP HTTP: a receiver on 127.0.0.1 (a `node:http` server standing in for a
 * collector, Jaeger or Tempo) gets the gateway's spans at `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`,
 * with `OTEL_SERVICE_NAME` as the resource's `service.name` and `OTEL_EXPORTER_OTLP_HEADERS`
 * on the export. The gateway runs as a real process with those variables set (the SDK's
 * exporter loads `node:http` with a dynamic import, which Jest's module sandbox cannot run);
 * the SDK batches spans and the gateway's stop (SIGTERM) sends what is left.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_KEYS, startSimulator } from '../../src/simulator';
import { startGatewayProcess, stopGatewayProcess } from '../support';

interface Export {
  path: string;
  headers: IncomingHttpHeaders;
  body: {
    resourceSpans?: Array<{
      resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
      scopeSpans?: Array<{ spans?: Array<{ name: string; kind: number; parentSpanId?: string }> }>;
    }>;
  };
}

let receiver: Server;
const received: Export[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as Export['body'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

it('sends the spans to the OTLP HTTP receiver named by OTEL_EXPORTER_OTLP_ENDPOINT, with the service name and export headers', async () => {
  const { port } = receiver.address() as AddressInfo;
  const simulator = await startSimulator({ port: 0, host: '127.0.0.1' });
  try {
    const gateway = await startGatewayProcess({
      PORT: '0',
      STATEV_BASE_URL: simulator.baseUrl,
      CACHE_FILE: 'off',
      LOG_LEVEL: 'silent',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token',
    });
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
      body: JSON.stringify({ query: 'query Companies { factories { name } }' }),
    });
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
    expect(await stopGatewayProcess(gateway.child)).toBe(0); // the stop flushes the batch
  } finally {
    await simulator.close();
  }

  expect(received.length).toBeGreaterThan(0);
  for (const sent of received) {
    expect(sent.path).toBe('/v1/traces');
    expect(sent.headers.authorization).toBe('Bearer collector-token');
    expect(sent.headers['content-type']).toBe('application/json');
  }
  const resourceSpans = received.flatMap((sent) => sent.body.resourceSpans ?? []);
  const serviceNames = resourceSpans.map(
    (entry) => entry.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue,
  );
  expect(new Set(serviceNames)).toEqual(new Set(['gateway-under-test']));
  const spans = resourceSpans.flatMap((entry) => entry.scopeSpans ?? []).flatMap((scope) => scope.spans ?? []);
  expect(spans.map((span) => span.name).sort()).toEqual(['GET /factory/list/', 'query Companies']);
}, 30_000);
