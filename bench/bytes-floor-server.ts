/**
 * The benchmark's `bytes-floor`: the physical floor of a cached answer. A node:http server
 * that reads each POST's body to its end and answers it with one stored byte buffer (the
 * gateway's whole answer to the same operation, headers as the gateway sends them), parsing
 * nothing: what a response-cache hit could cost at best on this machine.
 *
 * Usage: `node dist/bench/bytes-floor-server.js --port N --body FILE [--headers FILE]`
 * (FILE: the answer's bytes; headers: a JSON object of header names and values). Prints
 * `bytes-floor listening on http://127.0.0.1:N/graphql` once ready; stops on SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const USAGE = 'Usage: bytes-floor-server.js --port N --body FILE [--headers FILE]';

function main(): void {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, body: { type: 'string' }, headers: { type: 'string' } },
    strict: true,
  });
  if (values.port === undefined || values.body === undefined) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const body = readFileSync(values.body);
  const stored =
    values.headers === undefined ? {} : (JSON.parse(readFileSync(values.headers, 'utf8')) as Record<string, string>);
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    ...stored,
    'content-length': String(body.length),
  };
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    // The request is read to its end (as any server must before answering it), never parsed.
    req.resume();
    req.once('end', () => res.writeHead(200, headers).end(body));
  });
  server.listen(Number(values.port), '127.0.0.1', () =>
    process.stdout.write(`bytes-floor listening on http://127.0.0.1:${values.port}/graphql\n`),
  );
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main();
