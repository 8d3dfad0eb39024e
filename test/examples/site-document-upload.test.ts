/**
 * examples/site-document-upload against the gateway over HTTP and the simulator: uploads a
 * JSON file, reads it back through the gateway, and reports a conflict with its details.
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS, realisticCatalogue } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example is a plain CommonJS script
const example = require('../../examples/site-document-upload/upload.js') as {
  upload(options: Record<string, unknown>): Promise<{
    upstreamWrites: number;
    committed: boolean;
    document: { version: number; slots: number[]; bytes: number };
  }>;
  uploadPatiently(
    options: Record<string, unknown>,
    hooks: { sleep(ms: number): Promise<void>; onWait?(seconds: number): void },
  ): Promise<{ committed: boolean }>;
  describe(result: unknown): string;
  parseArgs(argv: string[]): Record<string, unknown>;
};

describe('examples/site-document-upload', () => {
  let stack: HttpStack;
  afterEach(async () => {
    await stack.close();
  });

  it('uploads a file, which the gateway then reads back equal; a stale expected version is a CONFLICT', async () => {
    stack = await startStack({ http: true });
    const file = join(mkdtempSync(join(tmpdir(), 'site-doc-')), 'catalogue.json');
    const catalogue = realisticCatalogue(200);
    writeFileSync(file, JSON.stringify(catalogue, null, 2));
    const options = {
      gatewayUrl: stack.endpoint,
      apiKey: DEMO_KEYS.premium.key,
      apiSecret: DEMO_KEYS.premium.secret,
      factoryId: FIXTURE_IDS.farm,
      name: 'catalogue',
      file,
    };
    const result = await example.upload({ ...options, waitSeconds: 10 });
    expect(result).toMatchObject({ committed: true, document: { version: 1 } });
    expect(result.upstreamWrites).toBe(result.document.slots.length);
    expect(example.describe(result)).toMatch(
      /^catalogue v1: \d+ bytes in slots [\d, ]+; \d+ upstream writes; committed$/,
    );

    const read = await stack.post({
      query: `{ factory(id: "${FIXTURE_IDS.farm}") { siteDocument(name: "catalogue") { value } } }`,
    });
    expect((read.body.data?.factory as { siteDocument: { value: unknown } }).siteDocument.value).toEqual(catalogue);

    await expect(example.upload({ ...options, expectedVersion: 0 })).rejects.toThrow(/^CONFLICT: .*currentVersion=1/);
    expect(example.parseArgs(['f', 'n', 'x.json', '--expected-version', '2', '--wait', '5'])).toEqual({
      factoryId: 'f',
      name: 'n',
      file: 'x.json',
      expectedVersion: 2,
      waitSeconds: 5,
    });
    expect(() => example.parseArgs(['f'])).toThrow(/usage/);
  });
});

describe('examples/site-document-upload on a spent budget', () => {
  it("tries again after retryAfterSeconds when the key's budget is spent, and only then", async () => {
    // A gateway stand-in: the answers below in order, each for one POST.
    const answers = [
      {
        errors: [
          {
            message: 'The StateV API rate limit for this key is reached',
            extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 },
          },
        ],
      },
      {
        data: {
          setSiteDocument: {
            upstreamWrites: 0,
            committed: false,
            retryAfterSeconds: 60,
            document: { name: 'catalogue', version: 1, bytes: 2, slots: [1, 2] },
          },
        },
      },
      {
        errors: [
          {
            message: 'The StateV API rate limit for this key is reached',
            extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 5 },
          },
        ],
      },
      { errors: [{ message: 'The document changed', extensions: { code: 'CONFLICT', currentVersion: 3 } }] },
    ];
    let posts = 0;
    const server = createServer((request, response) => {
      request.resume().on('end', () => {
        const answer = answers[posts] ?? answers[answers.length - 1];
        posts += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'site-doc-')), 'small.json');
      writeFileSync(file, '{}');
      const options = {
        gatewayUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
        apiKey: 'k',
        apiSecret: 's',
        factoryId: 'f',
        name: 'catalogue',
        file,
      };
      const slept: number[] = [];
      const sleep = async (ms: number): Promise<void> => {
        slept.push(ms);
      };
      await expect(example.uploadPatiently(options, { sleep })).resolves.toMatchObject({ committed: false });
      expect(slept).toEqual([42_000]);
      expect(posts).toBe(2);
      // RATE_LIMITED with no retries left is the error; a CONFLICT is never tried again.
      await expect(example.uploadPatiently({ ...options, retries: 0 }, { sleep })).rejects.toThrow(
        /^RATE_LIMITED: .*retryAfterSeconds=5/,
      );
      await expect(example.uploadPatiently(options, { sleep })).rejects.toThrow(/^CONFLICT: /);
      expect(slept).toEqual([42_000]);
      expect(posts).toBe(4);
      expect(example.parseArgs(['f', 'n', 'x.json', '--retries', '0'])).toMatchObject({ retries: 0 });
    } finally {
      server.close();
    }
  });
});
