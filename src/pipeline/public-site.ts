import { parse } from 'graphql';
import type { DocumentNode } from 'graphql';
import { MAX_DOCUMENT_TOKENS } from '../graph/validation/document-limits';
import { isIntrospectionOnly, TrustedDocuments } from './trusted-documents';
import type { TrustedDocument } from './trusted-documents';
import type { SiteKey } from './key-in-use';

/**
 * A GraphQL request as read: a POST body object (also a graphql-ws or graphql-sse
 * subscribe payload, `kind: 'post'`) or the GET query string (`kind: 'get'`, `params`).
 */
export type GraphQLRequestInput =
  | { readonly kind: 'post'; readonly body: Readonly<Record<string, unknown>> }
  | { readonly kind: 'get'; readonly params: URLSearchParams };

/** What Apollo is given: the body (POST) and the query string (GET, with its leading `?`, or empty). */
export interface RequestParameters {
  /** The POST body as parsed JSON, or undefined for GET. */
  body: unknown;
  /** The query string with its leading `?`, or empty. */
  search: string;
}

/**
 * What to do with one GraphQL request: run it (`siteKey`: the site's key for a keyless
 * trusted document, else null; `parameters`: what runs), or refuse it (`code`, `message`).
 */
export type PublicDecision =
  | { kind: 'run'; siteKey: SiteKey | null; parameters: RequestParameters }
  | { kind: 'refuse'; code: 'FORBIDDEN_DOCUMENT' | 'PERSISTED_QUERY_NOT_FOUND'; message: string };

/** Step 1, extract: the document hash a request names (`documentId`, or APQ's `extensions.persistedQuery.sha256Hash`), or null when it sends query text or names none. */
export function extractDocumentId(input: GraphQLRequestInput): string | null {
  const read = (documentId: unknown, extensions: unknown): string | null => {
    if (typeof documentId === 'string' && documentId !== '') return documentId;
    let ext = extensions;
    if (typeof ext === 'string') {
      try {
        ext = JSON.parse(ext) as unknown;
      } catch {
        return null;
      }
    }
    const pq = ext && typeof ext === 'object' ? (ext as Record<string, unknown>).persistedQuery : undefined;
    const hash = pq && typeof pq === 'object' ? (pq as Record<string, unknown>).sha256Hash : undefined;
    return typeof hash === 'string' && hash !== '' ? hash : null;
  };
  if (queryText(input) !== null) return null;
  return input.kind === 'post'
    ? read(input.body.documentId, input.body.extensions)
    : read(input.params.get('documentId'), input.params.get('extensions'));
}

function queryText(input: GraphQLRequestInput): string | null {
  const query = input.kind === 'post' ? input.body.query : input.params.get('query');
  return typeof query === 'string' && query !== '' ? query : null;
}

/**
 * Step 4, set parameters: the request's parameters for Apollo, with a trusted document's
 * text in place of its hash when there is one (so Apollo runs it as a normal query). The
 * input is never changed: a new body or query string is returned.
 */
export function requestParameters(input: GraphQLRequestInput, text: string | null): RequestParameters {
  if (input.kind === 'post') {
    if (text === null) return { body: input.body, search: '' };
    const { documentId: _documentId, extensions, ...rest } = input.body;
    let body: Record<string, unknown> = { ...rest, query: text };
    if (extensions && typeof extensions === 'object') {
      const { persistedQuery: _persistedQuery, ...otherExtensions } = extensions as Record<string, unknown>;
      body = { ...body, extensions: otherExtensions };
    }
    return { body, search: '' };
  }
  const params = new URLSearchParams(input.params);
  if (text !== null) {
    params.set('query', text);
    params.delete('documentId');
    params.delete('extensions');
  }
  const search = params.toString();
  return { body: undefined, search: search === '' ? '' : `?${search}` };
}

/**
 * Public-site mode: lets a website use the gateway without any key in the browser.
 * A request without its own bearer key may run only the trusted documents of the
 * manifest, by hash (`documentId`, `sha256:<hash>`, or APQ's
 * `extensions.persistedQuery.sha256Hash`), with the server's key; mutations only when
 * the manifest lists them and a server secret is configured. Introspection-only
 * documents stay open (they never reach the upstream). Requests with their own key are
 * unaffected, except that they may use the hashes too.
 *
 * {@link PublicSite.decide} is a chain of pure steps, as Yoga's persisted-operations
 * plugin is: extract the document id → look it up → allow arbitrary text? → set the
 * parameters; none changes the request, the last returns new parameters.
 */
export class PublicSite {
  /** The site's key for a trusted query (no secret) and for a trusted mutation (with it): one object each, so the key is hashed once (see `key-in-use.ts`). */
  private readonly siteKeys: { readonly read: SiteKey; readonly write: SiteKey } | null;

  private constructor(
    private readonly documents: TrustedDocuments | null,
    private readonly serverKey: string | null,
    private readonly serverSecret: string | null,
  ) {
    this.siteKeys =
      serverKey === null
        ? null
        : { read: { apiKey: serverKey, apiSecret: null }, write: { apiKey: serverKey, apiSecret: serverSecret } };
  }

  /** Builds it from the settings; public mode is on with both a server key and a manifest. */
  static fromConfig(config: {
    serverApiKey: string | null;
    serverApiSecret: string | null;
    trustedDocumentsPath: string | null;
  }): PublicSite {
    const documents = config.trustedDocumentsPath ? TrustedDocuments.load(config.trustedDocumentsPath) : null;
    return new PublicSite(documents, config.serverApiKey, config.serverApiSecret);
  }

  /** True when keyless requests run trusted documents with the server key. */
  get enabled(): boolean {
    return this.documents !== null && this.serverKey !== null;
  }

  /** Step 2, look up: the trusted document of a hash, or undefined. */
  lookUp(hash: string | null): TrustedDocument | undefined {
    return hash && this.documents ? this.documents.get(hash) : undefined;
  }

  /**
   * Decides how a request runs and with which parameters. Nothing here sends an
   * upstream request or changes `input`.
   */
  decide(input: GraphQLRequestInput, hasOwnKey: boolean): PublicDecision {
    const hash = extractDocumentId(input);
    const trusted = this.lookUp(hash);
    const parameters = requestParameters(input, trusted ? trusted.text : null);
    if (hasOwnKey || !this.enabled || !this.siteKeys) return { kind: 'run', siteKey: null, parameters };
    if (trusted) {
      if (trusted.hasMutation && !this.serverSecret) {
        return {
          kind: 'refuse',
          code: 'FORBIDDEN_DOCUMENT',
          message:
            'Writes are disabled for requests without an API key: the gateway has no STATEV_API_SECRET configured.',
        };
      }
      return { kind: 'run', siteKey: trusted.hasMutation ? this.siteKeys.write : this.siteKeys.read, parameters };
    }
    if (hash)
      return {
        kind: 'refuse',
        code: 'PERSISTED_QUERY_NOT_FOUND',
        message: `No trusted document has the hash ${hash.slice(0, 80)}.`,
      };
    return allowsArbitrary(input) ? { kind: 'run', siteKey: null, parameters } : FORBIDDEN;
  }
}

const FORBIDDEN: PublicDecision = {
  kind: 'refuse',
  code: 'FORBIDDEN_DOCUMENT',
  message:
    'Requests without an API key may only run this site\'s trusted documents, by hash (documentId or extensions.persistedQuery.sha256Hash). Send "Authorization: Bearer <API key>" to run your own queries.',
};

/**
 * Step 3, allow arbitrary text? Only for keyless requests that cannot reach the upstream:
 * introspection-only documents, and text Apollo will refuse anyway (missing or not
 * parsing), which it then explains.
 */
function allowsArbitrary(input: GraphQLRequestInput): boolean {
  const text = queryText(input);
  if (text === null) return true;
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: MAX_DOCUMENT_TOKENS });
  } catch {
    return true;
  }
  return isIntrospectionOnly(document);
}
