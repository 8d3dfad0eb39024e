/**
 * The `parse` and `validate` phases of the request pipeline: each query text parsed and
 * validated once, its document remembered in a cache bounded by `DOCUMENT_CACHE_MAX_BYTES`
 * (a text over `LARGE_DOCUMENT_LENGTH` is first parsed without locations, for the
 * gateway's own bound rules alone: see `ValidatedDocuments.prepare`).
 */
import { GraphQLError, isExecutableDefinitionNode, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, ParseOptions, ValidationRule } from 'graphql';
import { LRUCache } from 'lru-cache';
import { MAX_DOCUMENT_TOKENS } from '../graph/validation/document-limits';
import { documentHeapBytes } from '../graph/validation/document-heap';
import { mergedRule } from '../graph/validation/merged-rules';
import { clientError } from './refusals';

/** The `parse` step's options: at most `MAX_DOCUMENT_TOKENS` tokens. */
export const PARSE_OPTIONS: ParseOptions = { maxTokens: MAX_DOCUMENT_TOKENS };

/**
 * Query texts longer than this (UTF-16 code units) are first parsed without locations
 * and checked by the gateway's own rules alone ({@link ValidatedDocuments.prepare}):
 * the introspection query has about 1,700, a 33 KB document of hundreds of `__schema`
 * aliases is refused from that parse.
 */
export const LARGE_DOCUMENT_LENGTH = 8 * 1024;

/** The parse of a large text's first look: no locations (every token of the text would be kept by them). */
const FIRST_LOOK_OPTIONS: ParseOptions = { ...PARSE_OPTIONS, noLocation: true };

/**
 * What {@link ValidatedDocuments.warmUp} prepares: a large document of introspection aliases
 * (about 16 KB, over {@link LARGE_DOCUMENT_LENGTH}) that the introspection bound refuses
 * (with `INTROSPECTION=false`, `noIntrospectionRule` refuses it after the full validation).
 */
const WARM_UP_DOCUMENT = `{ ${Array.from(
  { length: 180 },
  (_, i) => `w${i}: __schema { types { name fields { name type { name kind ofType { name kind } } } } }`,
).join(' ')} }`;

/** How many times {@link ValidatedDocuments.warmUp} prepares it. */
const WARM_UP_ROUNDS = 3;

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
   * graphql-js's `specifiedRules`, then the `validate` steps' rules: the full validation,
   * made once, as one rule (merged-rules.ts: graphql-js's own merge asked each rule for each
   * kind of node, per document).
   */
  private readonly allRules: readonly ValidationRule[];

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
    this.allRules = [mergedRule([...specifiedRules, ...rules])];
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
   * (`GRAPHQL_VALIDATION_FAILED`) and remembered when it passed. A text over
   * {@link LARGE_DOCUMENT_LENGTH} is first parsed without locations and refused from that
   * parse when the bound rules refuse it (see `firstLook`): a parse with locations keeps
   * every token of the text (a 33 KB text: about 3 MB, copied by young-generation GCs).
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
      if (query.length > LARGE_DOCUMENT_LENGTH) {
        const refused = this.firstLook(query);
        validating();
        if (refused) return refused;
      }
      document = parse(query, PARSE_OPTIONS);
    } catch (error) {
      const parseError = error instanceof GraphQLError ? error : new GraphQLError('The query does not parse.');
      return { step: 'parse', errors: [clientError(parseError, 'GRAPHQL_PARSE_FAILED')] };
    }
    if (query.length <= LARGE_DOCUMENT_LENGTH) validating();
    const invalid = validate(this.schema, document, this.allRules);
    if (invalid.length > 0)
      return { step: 'depth', errors: invalid.map((error) => clientError(error, 'GRAPHQL_VALIDATION_FAILED')) };
    this.documents.set(query, document);
    return { document };
  }

  /**
   * Prepares a large document the bound rules refuse ({@link WARM_UP_DOCUMENT}) a few times,
   * remembering nothing, so that V8 has compiled the large-text path (the parse without
   * locations, the bound rules' walk) before a client's first large document runs on it.
   * Without it, the first such document of a gateway ran on cold code: a 39 KB document
   * of 369 `__schema` aliases took 25–36 ms of main thread as the first request after five
   * ordinary introspection queries (which are parsed once, then remembered), 4–12 ms
   * afterwards; with it, 16–22 ms. Not all of it stays: V8 drops optimized code that holds
   * an object a major collection freed ("weak objects"), the parser's among it, and compiles
   * it again during the next large parse. Called once at startup by the process entry points
   * (`npm start`, the bin and `npm run demo`; it costs about as much as that first document),
   * not by in-process starts such as the tests' (it made each of them tens of ms slower).
   *
   * @returns how many times the document was refused (every round, unless a rule lets it pass)
   */
  warmUp(): number {
    let refused = 0;
    for (let round = 0; round < WARM_UP_ROUNDS; round += 1)
      if ('errors' in this.prepare(WARM_UP_DOCUMENT, () => undefined)) refused += 1;
    this.documents.delete(WARM_UP_DOCUMENT);
    return refused;
  }

  /**
   * The first look at a large text: parsed without locations (a syntax error, or too many
   * tokens, throws as the full parse would: its error's locations come from the text) and
   * checked by the gateway's own rules alone (depth, introspection cost: each measures the
   * whole document at once and refuses with errors tied to no node). Their refusal is the
   * answer the full validation would give: graphql-js's rules report nothing before them
   * but a definition that is not executable (then the full parse answers). Otherwise
   * `null`: the text is parsed again, with locations, and validated in full.
   */
  private firstLook(query: string): ValidatedDocument | null {
    const document = parse(query, FIRST_LOOK_OPTIONS);
    if (!document.definitions.every(isExecutableDefinitionNode)) return null;
    const refused = validate(this.schema, document, this.rules);
    if (refused.length === 0 || refused.some((error) => error.nodes !== undefined)) return null;
    return { step: 'depth', errors: refused.map((error) => clientError(error, 'GRAPHQL_VALIDATION_FAILED')) };
  }
}
