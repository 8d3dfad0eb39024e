/**
 * The `parse` and `validate` phases of the request pipeline: each query text parsed and
 * validated once, its document remembered in a cache bounded by `DOCUMENT_CACHE_MAX_BYTES`.
 */
import { GraphQLError, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, ParseOptions, ValidationRule } from 'graphql';
import { LRUCache } from 'lru-cache';
import { MAX_DOCUMENT_TOKENS } from '../graph/validation/document-limits';
import { documentHeapBytes } from '../graph/validation/document-heap';
import { clientError } from './refusals';

/** The `parse` step's options: at most `MAX_DOCUMENT_TOKENS` tokens. */
export const PARSE_OPTIONS: ParseOptions = { maxTokens: MAX_DOCUMENT_TOKENS };

/** The share of `DOCUMENT_CACHE_MAX_BYTES` Apollo's own document store gets (see {@link documentCacheShares}). */
const APOLLO_SHARE = 1 / 8;

/**
 * How `DOCUMENT_CACHE_MAX_BYTES` is shared, so that it bounds every parsed document the
 * gateway keeps: an eighth for Apollo's own store (the documents Apollo parses itself:
 * `executeOperation` in tests; no HTTP request of the gateway's), the rest for the
 * pipeline's validated documents ({@link ValidatedDocuments}).
 */
export function documentCacheShares(maxBytes: number): { pipeline: number; apollo: number } {
  const apollo = Math.floor(maxBytes * APOLLO_SHARE);
  return { pipeline: maxBytes - apollo, apollo };
}

/** A query text's document, or the errors that refuse it and the step that did. */
export type ValidatedDocument =
  { readonly document: DocumentNode } | { readonly step: 'parse' | 'depth'; readonly errors: GraphQLError[] };

/**
 * The documents that parsed and passed validation, by query text: bounded by their
 * estimated heap (`documentHeapBytes`, as Apollo's store counts them here, plus the text).
 *
 * When to use: one per pipeline; {@link prepare} for every transport's query text.
 */
export class ValidatedDocuments {
  private readonly documents: LRUCache<string, DocumentNode>;

  /**
   * @param maxBytes - most bytes the documents and their texts may hold (estimated heap)
   * @param schema - the gateway's schema
   * @param rules - the `validate` steps' rules, run after graphql-js's `specifiedRules`
   */
  constructor(
    maxBytes: number,
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
  ) {
    this.documents = new LRUCache<string, DocumentNode>({
      maxSize: maxBytes,
      sizeCalculation: (document, query) => documentHeapBytes(document) + query.length * 2,
    });
  }

  /** Most bytes the documents may hold. */
  get maxBytes(): number {
    return this.documents.maxSize;
  }

  /**
   * The document of `query`: remembered, else parsed (`GRAPHQL_PARSE_FAILED`) and validated
   * (`GRAPHQL_VALIDATION_FAILED`) and remembered when it passed.
   *
   * @param validating - called when the `validate` steps run (the pipeline's step listeners)
   */
  prepare(query: string, validating: () => void): ValidatedDocument {
    const known = this.documents.get(query);
    if (known !== undefined) {
      validating();
      return { document: known };
    }
    let document: DocumentNode;
    try {
      document = parse(query, PARSE_OPTIONS);
    } catch (error) {
      const parseError = error instanceof GraphQLError ? error : new GraphQLError('The query does not parse.');
      return { step: 'parse', errors: [clientError(parseError, 'GRAPHQL_PARSE_FAILED')] };
    }
    validating();
    const invalid = validate(this.schema, document, [...specifiedRules, ...this.rules]);
    if (invalid.length > 0)
      return { step: 'depth', errors: invalid.map((error) => clientError(error, 'GRAPHQL_VALIDATION_FAILED')) };
    this.documents.set(query, document);
    return { document };
  }
}
