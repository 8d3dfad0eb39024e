/**
 * The `hostile` scenario's upstream: a small HTTP server that answers two hostile keys
 * with hostile bodies and passes every other request on to the simulator unchanged.
 *
 * - {@link NESTED_KEY}: HTTP 200, `application/json`, 200,000 nested arrays (400 KB);
 * - {@link LARGE_KEY}: HTTP 200, `application/json`, 6 MiB of JSON whitespace and `[]`,
 *   chunked (no length), over the gateway's default `UPSTREAM_MAX_BODY_BYTES`;
 * - {@link DEEP_KEY}: HTTP 200, `application/json`, about 4.9 MB of arrays nested 63 deep
 *   (under the nesting bound of 64), chunked;
 * - {@link COMPANIES_KEY}: `GET /factory/list/` answers a valid company list of
 *   {@link COMPANY_COUNT} entries (about 4.2 MB), chunked; its other requests 404;
 * - {@link COMPANIES_AT_LIMIT_KEY}: the same with {@link COMPANY_COUNT_AT_LIMIT} entries
 *   (about 1 MB, just under the default `UPSTREAM_MAX_BODY_BYTES` of 1 MiB);
 * - {@link COMPANIES_CHANGING_KEY}: the same list, whose first company's name changes on
 *   every request (a live query of it gets a new result after each fetch).
 *
 * Usage: `node dist/bench/upstream-stub.js --port N --simulator ORIGIN` (prints
 * `upstream stub on http://127.0.0.1:N` once ready; stops on SIGINT/SIGTERM). A process of
 * its own, so that sending its bodies never holds up the bench's `/healthz` poller.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

/** The key the stub answers with 200,000 nested arrays. */
export const NESTED_KEY = 'hostile-nested-key-0001';
/** The key the stub answers with a 6 MiB body. */
export const LARGE_KEY = 'hostile-large-key-00001';

/** The key the stub answers with about 4.9 MB of arrays nested 63 deep. */
export const DEEP_KEY = 'hostile-deep-key-000001';
/** The key whose company list has {@link COMPANY_COUNT} entries. */
export const COMPANIES_KEY = 'hostile-companies-key-01';
/** Entries of {@link COMPANIES_KEY}'s company list. */
export const COMPANY_COUNT = 15_000;
/** The key whose company list has {@link COMPANY_COUNT_AT_LIMIT} entries. */
export const COMPANIES_AT_LIMIT_KEY = 'hostile-companies-key-02';
/** Entries of {@link COMPANIES_AT_LIMIT_KEY}'s company list: the most under 1 MiB. */
export const COMPANY_COUNT_AT_LIMIT = 3_700;

/** The key whose company list ({@link COMPANY_COUNT_AT_LIMIT} entries) changes on every request. */
export const COMPANIES_CHANGING_KEY = 'hostile-companies-key-03';

const HOST = '127.0.0.1';

/** `[` + chains of 62 nested arrays + `]`: 63 levels, about `bytes` long. */
function deepArrays(bytes: number): Buffer {
  const chain = '['.repeat(62) + ']'.repeat(62);
  const count = Math.floor(bytes / (chain.length + 1));
  return Buffer.from(`[${Array.from({ length: count }, () => chain).join(',')}]`);
}

/** A company list of `count` entries with every field the upstream may send (about 280 bytes each). */
function companyList(count: number, version = 0): Buffer {
  const entries = Array.from({ length: count }, (_, i) => ({
    id: `64f1c2a9e4b0${i.toString(16).padStart(12, '0')}`,
    name: `Hostile Company ${i} GmbH & Co. KG${i === 0 && version > 0 ? ` (${version})` : ''}`,
    hash: `h${i.toString(36).padStart(31, '0')}`,
    adLine: `Everything you need, at company ${i}, open every day of the week`,
    isOpen: i % 2 === 0,
    type: 'shop',
    address: `${i} Long Street, Los Santos, San Andreas`,
  }));
  return Buffer.from(JSON.stringify(entries));
}

function main(): void {
  const { values } = parseArgs({ options: { port: { type: 'string' }, simulator: { type: 'string' } }, strict: true });
  const simOrigin = values.simulator;
  if (values.port === undefined || simOrigin === undefined) {
    process.stderr.write('Usage: upstream-stub.js --port N --simulator ORIGIN\n');
    process.exit(2);
  }
  const nested = Buffer.from('['.repeat(200_000) + ']'.repeat(200_000));
  const large = Buffer.concat([Buffer.alloc(6 * 1024 * 1024, 0x20), Buffer.from('[]')]);
  const deep = deepArrays(4_900_000);
  const companyLists = new Map([
    [`Bearer ${COMPANIES_KEY}`, companyList(COMPANY_COUNT)],
    [`Bearer ${COMPANIES_AT_LIMIT_KEY}`, companyList(COMPANY_COUNT_AT_LIMIT)],
  ]);
  let version = 0;
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    if (auth === `Bearer ${DEEP_KEY}`) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
      return;
    }
    if (auth === `Bearer ${COMPANIES_CHANGING_KEY}`) {
      version += 1;
      companyLists.set(auth, companyList(COMPANY_COUNT_AT_LIMIT, version));
    }
    const companies = companyLists.get(auth);
    if (companies) {
      const list = (req.url ?? '').endsWith('/factory/list/');
      res.writeHead(list ? 200 : 404, { 'content-type': 'application/json' });
      res.end(list ? companies : JSON.stringify({ statusCode: 404, message: 'Not Found', error: 'Not Found' }));
      return;
    }
    if (auth === `Bearer ${NESTED_KEY}` || auth === `Bearer ${LARGE_KEY}`) {
      // Without a length (chunked), so the gateway finds out while it reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(auth === `Bearer ${NESTED_KEY}` ? nested : large);
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (part: Buffer) => body.push(part));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      fetch(`${simOrigin}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: body.length > 0 ? Buffer.concat(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      })
        .then(async (response) => {
          const text = Buffer.from(await response.arrayBuffer());
          const out: Record<string, string> = {
            'content-type': response.headers.get('content-type') ?? 'application/json',
          };
          const retryAfter = response.headers.get('retry-after');
          if (retryAfter) out['retry-after'] = retryAfter;
          res.writeHead(response.status, out);
          res.end(text);
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  server.listen(Number(values.port), HOST, () =>
    process.stdout.write(`upstream stub on http://${HOST}:${values.port}\n`),
  );
  const stop = (): void => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) main();
