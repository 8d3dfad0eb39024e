/**
 * examples/stock-alert for the tests that run it: the plain CommonJS script's entry point,
 * and a webhook receiver on 127.0.0.1:0 that records what the script posts.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example is a plain CommonJS script
const stockAlert = require('../../examples/stock-alert/stock-alert.js') as {
  startStockAlert(options: Record<string, unknown>): { stop(): Promise<void> };
};

/** The example's entry point: subscribes with the options given, posts to their webhook. */
export const { startStockAlert } = stockAlert;

/** A Discord-style webhook receiver on port 0: every POSTed JSON body, in order. */
export async function webhookReceiver(): Promise<{
  url: string;
  server: Server;
  posts: Array<Record<string, unknown>>;
  nextPost(): Promise<Record<string, unknown>>;
}> {
  const posts: Array<Record<string, unknown>> = [];
  const waiting: Array<(body: Record<string, unknown>) => void> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      posts.push(body);
      waiting.shift()?.(body);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    server,
    posts,
    nextPost: () => new Promise((resolve) => waiting.push(resolve)),
  };
}
