/**
 * The `hostile` scenario's upstream: a small HTTP server that answers two hostile keys
 * with hostile bodies and passes every other request on to the simulator unchanged.
 *
 * - {@link NESTED_KEY}: HTTP 200, `application/json`, 200,000 nested arrays (400 KB);
 * - {@link LARGE_KEY}: HTTP 200, `application/json`, 6 MiB of JSON whitespace and `[]`,
 *   chunked (no length), over the gateway's default `UPSTREAM_MAX_BODY_BYTES` of 5 MiB.
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

const HOST = '127.0.0.1';

function main(): void {
  const { values } = parseArgs({ options: { port: { type: 'string' }, simulator: { type: 'string' } }, strict: true });
  const simOrigin = values.simulator;
  if (values.port === undefined || simOrigin === undefined) {
    process.stderr.write('Usage: upstream-stub.js --port N --simulator ORIGIN\n');
    process.exit(2);
  }
  const nested = Buffer.from('['.repeat(200_000) + ']'.repeat(200_000));
  const large = Buffer.concat([Buffer.alloc(6 * 1024 * 1024, 0x20), Buffer.from('[]')]);
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
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
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      fetch(`${simOrigin}${req.url ?? '/'}`, { method: req.method, headers, body: body.length > 0 ? Buffer.concat(body) : undefined, signal: AbortSignal.timeout(30_000) })
        .then(async (response) => {
          const text = Buffer.from(await response.arrayBuffer());
          const out: Record<string, string> = { 'content-type': response.headers.get('content-type') ?? 'application/json' };
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
  server.listen(Number(values.port), HOST, () => process.stdout.write(`upstream stub on http://${HOST}:${values.port}\n`));
  const stop = (): void => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) main();
