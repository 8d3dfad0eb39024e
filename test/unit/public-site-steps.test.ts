/**
 * Public-site mode's steps are pure: extract the document id, look it up, allow arbitrary
 * text?, set parameters. None changes the request it is given; the parameters Apollo gets
 * are new objects.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractDocumentId, PublicSite, requestParameters } from '../../src/pipeline/public-site';

const TEXT = 'query Site { factories { id } }';
const HASH = createHash('sha256').update(TEXT).digest('hex');

let dir: string;
let site: PublicSite;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'statev-steps-'));
  const manifest = join(dir, 'trusted.json');
  writeFileSync(manifest, JSON.stringify({ [HASH]: TEXT }));
  site = PublicSite.fromConfig({ serverApiKey: 'server-key', serverApiSecret: null, trustedDocumentsPath: manifest });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('public-site steps', () => {
  it('extracts the id from documentId or APQ, never when query text is sent', () => {
    expect(extractDocumentId({ kind: 'post', body: { documentId: `sha256:${HASH}` } })).toBe(`sha256:${HASH}`);
    expect(extractDocumentId({ kind: 'post', body: { extensions: { persistedQuery: { sha256Hash: HASH } } } })).toBe(
      HASH,
    );
    expect(
      extractDocumentId({
        kind: 'get',
        params: new URLSearchParams({ extensions: JSON.stringify({ persistedQuery: { sha256Hash: HASH } }) }),
      }),
    ).toBe(HASH);
    expect(extractDocumentId({ kind: 'post', body: { query: '{ __typename }', documentId: HASH } })).toBeNull();
  });

  it('sets parameters on new objects, leaving a POST body unchanged', () => {
    const body = Object.freeze({
      documentId: HASH,
      variables: { a: 1 },
      extensions: Object.freeze({ persistedQuery: { sha256Hash: HASH }, other: true }),
    });
    const decision = site.decide({ kind: 'post', body }, false);
    expect(decision).toMatchObject({ kind: 'run', siteKey: { apiKey: 'server-key', apiSecret: null } });
    if (decision.kind !== 'run') throw new Error('refused');
    expect(decision.parameters.body).toEqual({ query: TEXT, variables: { a: 1 }, extensions: { other: true } });
    expect(body).toEqual({
      documentId: HASH,
      variables: { a: 1 },
      extensions: { persistedQuery: { sha256Hash: HASH }, other: true },
    });
  });

  it('builds the GET query string itself, leaving the given parameters unchanged', () => {
    const params = new URLSearchParams({ documentId: HASH, variables: '{}' });
    const decision = site.decide({ kind: 'get', params }, false);
    if (decision.kind !== 'run') throw new Error('refused');
    expect(new URLSearchParams(decision.parameters.search).get('query')).toBe(TEXT);
    expect(new URLSearchParams(decision.parameters.search).get('documentId')).toBeNull();
    expect(params.get('documentId')).toBe(HASH);
    expect(params.get('query')).toBeNull();
    expect(requestParameters({ kind: 'get', params: new URLSearchParams() }, null).search).toBe('');
  });

  it('refuses text and unknown hashes without a key; allows introspection-only text', () => {
    expect(site.decide({ kind: 'post', body: { query: TEXT } }, false)).toMatchObject({
      kind: 'refuse',
      code: 'FORBIDDEN_DOCUMENT',
    });
    expect(site.decide({ kind: 'post', body: { documentId: 'abc' } }, false)).toMatchObject({
      kind: 'refuse',
      code: 'PERSISTED_QUERY_NOT_FOUND',
    });
    expect(site.decide({ kind: 'post', body: { query: '{ __schema { types { name } } }' } }, false)).toMatchObject({
      kind: 'run',
      siteKey: null,
    });
    expect(site.decide({ kind: 'post', body: { query: TEXT } }, true)).toMatchObject({ kind: 'run', siteKey: null });
  });
});
