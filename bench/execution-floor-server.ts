/**
 * The benchmark's `execution-floor`: graphql-js `execute` over the gateway's schema
 * (`schema.graphql`, built with graphql's `buildSchema`) with plain resolvers that read
 * the upstream answers from a Map, behind the gateway's own node:http bridge
 * (`readGraphQLRequest` from src/web/apollo-http.ts). What executing the dashboard over
 * cached data costs with nothing else: no Apollo, no plugins, no loaders, no economy, no
 * per-key cache, no accounting.
 *
 * The Map is process-wide and keyed by request path: a path's first read GETs it from the
 * simulator with the bench's key (the probe request does that), every later read takes the
 * parsed answer from the Map. The resolvers map an answer with the gateway's own domain
 * functions (`fetch*` of src/domains/*, on a session that reads the Map), so both answer the
 * same data; the mapping runs on every read, as it would in a minimal gateway. Parsed and
 * validated documents are kept per query text (as any server keeps them).
 *
 * Usage: `node dist/bench/execution-floor-server.js --port N --simulator BASE_URL --key KEY`
 * (prints `execution-floor listening on http://127.0.0.1:N/graphql` once ready; stops on
 * SIGINT/SIGTERM).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DocumentNode, GraphQLFieldResolver } from 'graphql';
import { buildSchema, execute, parse, validate } from 'graphql';
import type { UpstreamSession } from '../src/economy';
import type { UpstreamFailure } from '../src/economy';
import type { UpstreamReply } from '../src/economy/upstream-economy';
import type { UpstreamErrorCode } from '../src/errors/gateway-error';
import { projectRoot } from '../src/project-root';
import type { Endpoint, PathParams } from '../src/upstream/endpoints';
import { buildPath } from '../src/upstream/endpoints';
import { BodyTooLargeError, readGraphQLRequest, sendJson, sendRefusal } from '../src/web/apollo-http';
import {
  fetchBuildingBankAccounts,
  fetchBuildingDetails,
  fetchBuildingList,
  fetchBuildingTransactions,
  fetchRooms,
  fetchTenants,
} from '../src/domains/buildings/buildings.api';
import {
  fetchCounter,
  fetchFactoryBankAccounts,
  fetchFactoryList,
  fetchFactoryTransactions,
  fetchInventory,
  fetchMachineInventory,
  fetchOption,
  fetchVehicles,
} from '../src/domains/factories/factories.api';
import { fetchBuyOffers, fetchSellOffers } from '../src/domains/market/market.api';

const MAX_BODY_BYTES = 1_048_576;
/** `Factory.options` reads slots 1..10, as the gateway does by default (`OPTION_SLOTS`). */
const OPTION_SLOTS = 10;

const USAGE = 'Usage: execution-floor-server.js --port N --simulator BASE_URL --key KEY';

/** What a status becomes, as the gateway's client maps the statuses the dashboard meets. */
function codeOf(status: number): UpstreamErrorCode {
  if (status === 404) return 'NOT_FOUND';
  if (status === 401 || status === 403) return 'FORBIDDEN';
  if (status === 400) return 'UPSTREAM_BAD_REQUEST';
  return 'UPSTREAM_ERROR';
}

/** Upstream answers by path: parsed bodies, or failure records for 4xx. */
class AnswerMap {
  private readonly answers = new Map<string, Promise<UpstreamReply>>();

  constructor(
    private readonly origin: string,
    private readonly key: string,
  ) {}

  get(endpoint: Endpoint, params: PathParams | undefined): Promise<UpstreamReply> {
    const path = buildPath(endpoint, params);
    let answer = this.answers.get(path);
    if (answer === undefined) {
      answer = this.fetch(endpoint, path);
      this.answers.set(path, answer);
    }
    return answer;
  }

  private async fetch(endpoint: Endpoint, path: string): Promise<UpstreamReply> {
    const response = await fetch(`${this.origin}${path}`, { headers: { authorization: `Bearer ${this.key}` } });
    const text = await response.text();
    if (response.ok) return { body: JSON.parse(text) as unknown, stale: null };
    let message = `HTTP ${response.status}`;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string')
        message = (parsed as { message: string }).message;
    } catch {
      // not JSON: keep the status
    }
    if (response.status >= 500) throw new Error(`${endpoint.route}: ${message}`);
    const failure: UpstreamFailure = {
      code: codeOf(response.status),
      upstream: { status: response.status, endpoint: endpoint.route, message },
      extra: {},
    };
    return { failure, stale: null };
  }
}

/** The part of `UpstreamSession` the domain `fetch*` functions use, reading the Map. */
function mapSession(answers: AnswerMap): UpstreamSession {
  const session = {
    cached: () => undefined,
    get: (endpoint: Endpoint, params?: PathParams) => answers.get(endpoint, params),
    getFresh: (endpoint: Endpoint, params?: PathParams) => answers.get(endpoint, params),
    markStale: <T>(result: T): T => result,
  };
  return session as unknown as UpstreamSession;
}

type Resolver = GraphQLFieldResolver<Record<string, unknown>, unknown, Record<string, unknown>>;

/** The dashboard's upstream-backed fields; every other field is read from its parent by graphql's default resolver. */
function resolvers(session: UpstreamSession): Record<string, Record<string, Resolver>> {
  const id = (parent: Record<string, unknown>): string => String(parent.id);
  const page = (parent: Record<string, unknown>, args: Record<string, unknown>) => ({
    id: id(parent),
    limit: Number(args.limit),
    skip: Number(args.skip),
  });
  return {
    Query: {
      factories: () => fetchFactoryList(session),
      buildings: () => fetchBuildingList(session),
    },
    Factory: {
      inventory: (parent) => fetchInventory(session, id(parent)),
      machineInventory: (parent) => fetchMachineInventory(session, id(parent)),
      counter: (parent) => fetchCounter(session, id(parent)),
      sellOffers: (parent) => fetchSellOffers(session, id(parent)),
      buyOffers: (parent) => fetchBuyOffers(session, id(parent)),
      vehicles: (parent) => fetchVehicles(session, id(parent)),
      bankAccounts: (parent) => fetchFactoryBankAccounts(session, id(parent)),
      options: async (parent) => {
        const slots = await Promise.all(
          Array.from({ length: OPTION_SLOTS }, (_, i) => fetchOption(session, { id: id(parent), slot: i + 1 })),
        );
        return slots.filter((slot) => slot !== null);
      },
    },
    FactoryBankAccount: { transactions: (parent, args) => fetchFactoryTransactions(session, page(parent, args)) },
    Building: {
      details: (parent) => fetchBuildingDetails(session, id(parent)),
      rooms: (parent) => fetchRooms(session, id(parent)),
      tenants: (parent) => fetchTenants(session, id(parent)),
      bankAccounts: (parent) => fetchBuildingBankAccounts(session, id(parent)),
    },
    BuildingBankAccount: { transactions: (parent, args) => fetchBuildingTransactions(session, page(parent, args)) },
    Room: {
      tenant: async (parent) => {
        if (parent.occupied !== true) return null;
        const tenants = await fetchTenants(session, String(parent.buildingId));
        return tenants.find((tenant) => tenant.roomId === parent.id) ?? null;
      },
    },
    Tenant: {
      room: async (parent) => {
        const rooms = await fetchRooms(session, String(parent.buildingId));
        return rooms.find((room) => room.id === parent.roomId) ?? null;
      },
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, simulator: { type: 'string' }, key: { type: 'string' } },
    strict: true,
  });
  if (values.port === undefined || values.simulator === undefined || values.key === undefined) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const port = Number(values.port);
  const schema = buildSchema(readFileSync(join(projectRoot(), 'schema.graphql'), 'utf8'));
  const session = mapSession(new AnswerMap(values.simulator, values.key));
  for (const [typeName, fields] of Object.entries(resolvers(session))) {
    const type = schema.getType(typeName);
    if (!type || !('getFields' in type)) throw new Error(`schema.graphql has no object type ${typeName}`);
    const typeFields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fields)) {
      const field = typeFields[fieldName];
      if (!field || !('resolve' in field)) throw new Error(`schema.graphql has no field ${typeName}.${fieldName}`);
      field.resolve = resolve;
    }
  }
  const documents = new Map<string, DocumentNode>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor.invalid');
    const route = async (): Promise<void> => {
      if (url.pathname === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      if (url.pathname !== '/graphql' || req.method !== 'POST') {
        sendJson(res, 404, { error: 'Not found. POST /graphql.' });
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
      const body = (request.body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
      if (typeof body.query !== 'string') {
        sendJson(res, 400, { errors: [{ message: 'POST a JSON body with a query.' }] });
        return;
      }
      let document = documents.get(body.query);
      if (document === undefined) {
        document = parse(body.query);
        const errors = validate(schema, document);
        if (errors.length > 0) {
          sendJson(res, 400, { errors });
          return;
        }
        documents.set(body.query, document);
      }
      const result = await execute({
        schema,
        document,
        variableValues:
          body.variables && typeof body.variables === 'object'
            ? (body.variables as Record<string, unknown>)
            : undefined,
        operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
      });
      sendJson(res, 200, result);
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
  process.stdout.write(`execution-floor listening on http://127.0.0.1:${port}/graphql\n`);
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
