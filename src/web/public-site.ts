import { parse } from 'graphql';
import type { DocumentNode } from 'graphql';
import { isIntrospectionOnly, TrustedDocuments } from './trusted-documents';

/** The credentials an operation runs with when they are not the caller's own. */
export interface ServerCredentials {
  apiKey: string;
  apiSecret: string | null;
}

/** What to do with one GraphQL request. */
export type PublicDecision =
  | { kind: 'run'; credentials: ServerCredentials | null }
  | { kind: 'refuse'; code: 'FORBIDDEN_DOCUMENT' | 'PERSISTED_QUERY_NOT_FOUND'; message: string };

/** A GraphQL request as read from HTTP: a POST body object or the GET query string. */
export type GraphQLRequestInput = { kind: 'post'; body: Record<string, unknown> } | { kind: 'get'; params: URLSearchParams };

function persistedHash(input: GraphQLRequestInput): string | null {
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
  if (input.kind === 'post') {
    if (typeof input.body.query === 'string' && input.body.query !== '') return null;
    return read(input.body.documentId, input.body.extensions);
  }
  if (input.params.get('query')) return null;
  return read(input.params.get('documentId'), input.params.get('extensions'));
}

/** Puts a trusted document's text in place of its hash, so Apollo runs it as a normal query. */
function inline(input: GraphQLRequestInput, text: string): void {
  if (input.kind === 'post') {
    input.body.query = text;
    delete input.body.documentId;
    const extensions = input.body.extensions;
    if (extensions && typeof extensions === 'object') delete (extensions as Record<string, unknown>).persistedQuery;
  } else {
    input.params.set('query', text);
    input.params.delete('documentId');
    input.params.delete('extensions');
  }
}

function queryText(input: GraphQLRequestInput): string | null {
  const query = input.kind === 'post' ? input.body.query : input.params.get('query');
  return typeof query === 'string' && query !== '' ? query : null;
}

/**
 * Public-site mode: lets a website use the gateway without any key in the browser.
 * A request without its own bearer key may run only the trusted documents of the
 * manifest, by hash (`documentId`, `sha256:<hash>`, or APQ's
 * `extensions.persistedQuery.sha256Hash`), with the server's key; mutations only when
 * the manifest lists them and a server secret is configured. Introspection-only
 * documents stay open (they never reach the upstream). Requests with their own key are
 * unaffected, except that they may use the hashes too.
 */
export class PublicSite {
  private constructor(
    private readonly documents: TrustedDocuments | null,
    private readonly serverKey: string | null,
    private readonly serverSecret: string | null,
  ) {}

  /** Builds it from the settings; public mode is on with both a server key and a manifest. */
  static fromConfig(config: { serverApiKey: string | null; serverApiSecret: string | null; trustedDocumentsPath: string | null }): PublicSite {
    const documents = config.trustedDocumentsPath ? TrustedDocuments.load(config.trustedDocumentsPath) : null;
    return new PublicSite(documents, config.serverApiKey, config.serverApiSecret);
  }

  /** True when keyless requests run trusted documents with the server key. */
  get enabled(): boolean {
    return this.documents !== null && this.serverKey !== null;
  }

  /**
   * Decides how a request runs; rewrites `input` in place when it names a trusted
   * document by hash. Nothing here sends an upstream request.
   */
  decide(input: GraphQLRequestInput, hasOwnKey: boolean): PublicDecision {
    const hash = persistedHash(input);
    const trusted = hash && this.documents ? this.documents.get(hash) : undefined;
    if (trusted) inline(input, trusted.text);
    if (hasOwnKey || !this.enabled || !this.serverKey) return { kind: 'run', credentials: null };

    if (hash && !trusted) {
      return { kind: 'refuse', code: 'PERSISTED_QUERY_NOT_FOUND', message: `No trusted document has the hash ${hash.slice(0, 80)}.` };
    }
    if (trusted) {
      if (trusted.hasMutation && !this.serverSecret) {
        return {
          kind: 'refuse',
          code: 'FORBIDDEN_DOCUMENT',
          message: 'Writes are disabled for requests without an API key: the gateway has no STATEV_API_SECRET configured.',
        };
      }
      return { kind: 'run', credentials: { apiKey: this.serverKey, apiSecret: trusted.hasMutation ? this.serverSecret : null } };
    }
    const text = queryText(input);
    if (text === null) return { kind: 'run', credentials: null }; // Apollo explains what is missing
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch {
      return { kind: 'run', credentials: null }; // Apollo reports the syntax error; no key, no upstream request
    }
    if (isIntrospectionOnly(document)) return { kind: 'run', credentials: null };
    return {
      kind: 'refuse',
      code: 'FORBIDDEN_DOCUMENT',
      message:
        'Requests without an API key may only run this site\'s trusted documents, by hash (documentId or extensions.persistedQuery.sha256Hash). Send "Authorization: Bearer <API key>" to run your own queries.',
    };
  }
}
