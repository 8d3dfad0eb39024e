/**
 * examples/site-document-upload against the gateway over HTTP and the simulator: uploads a
 * JSON file, reads it back through the gateway, and reports a conflict with its details.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_KEYS, FIXTURE_IDS, realisticCatalogue } from '../../src/simulator';
import { startStack } from '../support';
import type { HttpStack } from '../support';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example is a plain CommonJS script
const example = require('../../examples/site-document-upload/upload.js') as {
  upload(options: Record<string, unknown>): Promise<{ upstreamWrites: number; committed: boolean; document: { version: number; slots: number[]; bytes: number } }>;
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
    const options = { gatewayUrl: stack.endpoint, apiKey: DEMO_KEYS.premium.key, apiSecret: DEMO_KEYS.premium.secret, factoryId: FIXTURE_IDS.farm, name: 'catalogue', file };
    const result = await example.upload({ ...options, waitSeconds: 10 });
    expect(result).toMatchObject({ committed: true, document: { version: 1 } });
    expect(result.upstreamWrites).toBe(result.document.slots.length);
    expect(example.describe(result)).toMatch(/^catalogue v1: \d+ bytes in slots [\d, ]+; \d+ upstream writes; committed$/);

    const read = await stack.post({ query: `{ factory(id: "${FIXTURE_IDS.farm}") { siteDocument(name: "catalogue") { value } } }` });
    expect((read.body.data?.factory as { siteDocument: { value: unknown } }).siteDocument.value).toEqual(catalogue);

    await expect(example.upload({ ...options, expectedVersion: 0 })).rejects.toThrow(/^CONFLICT: .*currentVersion=1/);
    expect(example.parseArgs(['f', 'n', 'x.json', '--expected-version', '2', '--wait', '5'])).toEqual({ factoryId: 'f', name: 'n', file: 'x.json', expectedVersion: 2, waitSeconds: 5 });
    expect(() => example.parseArgs(['f'])).toThrow(/usage/);
  });
});
