/**
 * The benchmark's `floor` baseline: a bare Apollo Server 5 behind the gateway's own
 * node:http bridge (`readGraphQLRequest` / `executeOnApollo` from src/web/apollo-http.ts),
 * serving the gateway's schema (`schema.graphql`, built with graphql's `buildSchema`)
 * from static in-memory data: the dashboard response captured from the gateway is the
 * `rootValue`, and graphql's default resolvers read its properties (scalars pass
 * through). No upstream, no cache, no plugins of ours: what Apollo itself costs.
 *
 * Usage: `node dist/bench/floor-server.js --port N --data FILE` (prints
 * `floor listening on http://127.0.0.1:N/graphql` once ready; stops on SIGINT/SIGTERM).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApolloServer } from '@apollo/server';
import { buildSchema } from 'graphql';
import { projectRoot } from '../src/project-root';
import { BodyTooLargeError, executeOnApollo, readGraphQLRequest, sendJson, sendRefusal } from '../src/web/apollo-http';

const MAX_BODY_BYTES = 1_048_576;

const USAGE = 'Usage: floor-server.js --port N --data FILE';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' }, data: { type: 'string' } }, strict: true });
  if (values.port === undefined || values.data === undefined) {
    process.stderr.write(`${USAGE} (missing ${values.port === undefined ? '--port' : '--data'})\n`);
    process.exit(2);
  }
  const port = Number(values.port);
  const data = JSON.parse(readFileSync(values.data, 'utf8')) as unknown;
  const schema = buildSchema(readFileSync(join(projectRoot(), 'schema.graphql'), 'utf8'));
  const apollo = new ApolloServer({ schema, rootValue: data });
  await apollo.start();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor.invalid');
    const route = async (): Promise<void> => {
      if (url.pathname === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      if (url.pathname !== '/graphql' || (req.method !== 'POST' && req.method !== 'GET')) {
        sendJson(res, 404, { error: 'Not found. The GraphQL endpoint is /graphql.' });
        return;
      }
      const request = await readGraphQLRequest(req, {
        maxBodyBytes: MAX_BODY_BYTES,
        maxVariablesBytes: MAX_BODY_BYTES,
      });
      if (request.kind === 'refused') {
        sendRefusal(req, res, request);
        return;
      }
      await executeOnApollo(apollo, req, res, {
        headers: request.headers,
        body: request.body,
        search: url.search,
        context: async () => ({}),
      });
    };
    route().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, error instanceof BodyTooLargeError ? 413 : 500, {
        errors: [{ message: error instanceof Error ? error.message : 'Internal server error' }],
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  process.stdout.write(`floor listening on http://127.0.0.1:${port}/graphql\n`);
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    apollo.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
