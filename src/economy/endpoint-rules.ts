import type { Endpoint } from '../upstream/endpoints';
import { cacheKey } from './cache/cache-entry';

/**
 * What a domain tells the economy about one of its endpoints, beyond the endpoint catalog:
 * which reads writes change and what a write invalidates. The economy applies these rules
 * without knowing what the data is; the domain that owns the endpoint writes them and
 * registers them (`registerEndpointRules` in `src/domains/shared/endpoint-rules.ts`), and
 * the runtime hands every domain's to the economy (`EconomyOptions.endpointRules`).
 *
 * A write names a scope (a string, e.g. the company its body names); the scope is what
 * travels to the other replicas, and each replica turns it into the reads to forget with
 * every rule's {@link scopeReads}.
 */
export interface EndpointRules {
  /** The endpoint these rules are about. */
  readonly endpoint: Endpoint;
  /**
   * A read whose answers writes change: while this replica may have missed other replicas'
   * writes (Redis away, or back but not caught up), a fresh cached answer of it is served
   * flagged stale (`INVALIDATION_PENDING`), never as fresh.
   */
  readonly changedByWrites?: boolean;
  /**
   * A write that invalidates: the scope a successful write changed, read from its body, or
   * null when the body names none (then only the key's generation moves, on every
   * replica). Absent: the endpoint's writes invalidate nothing.
   */
  readonly writeScope?: (body: unknown) => string | null;
  /**
   * The request paths of the reads a write in `scope` changes: forgotten in this process,
   * in the shared cache and on every replica.
   */
  readonly scopeReads?: (scope: string) => readonly string[];
}

/**
 * The registered {@link EndpointRules}, by endpoint, as the economy asks them.
 *
 * When to use: the economy's invalidation owns one; nothing else reads the rules.
 */
export class EndpointRuleBook {
  private readonly byEndpoint = new Map<Endpoint, EndpointRules>();
  private readonly scopes: ReadonlyArray<(scope: string) => readonly string[]>;

  /**
   * @param rules - every domain's rules (an endpoint at most once)
   * @throws Error when two rules name the same endpoint
   */
  constructor(rules: readonly EndpointRules[] = []) {
    for (const rule of rules) {
      if (this.byEndpoint.has(rule.endpoint))
        throw new Error(`Endpoint rules for ${rule.endpoint.route} registered twice.`);
      this.byEndpoint.set(rule.endpoint, rule);
    }
    this.scopes = rules.flatMap((rule) => (rule.scopeReads ? [rule.scopeReads] : []));
  }

  /** True when writes change this read's answers (see {@link EndpointRules.changedByWrites}). */
  changedByWrites(endpoint: Endpoint): boolean {
    return this.byEndpoint.get(endpoint)?.changedByWrites === true;
  }

  /** The scope a successful write of this endpoint with `body` changed; `undefined` when its writes invalidate nothing. */
  writeScope(endpoint: Endpoint, body: unknown): string | null | undefined {
    return this.byEndpoint.get(endpoint)?.writeScope?.(body);
  }

  /** The cache keys of `keyId`'s reads a write in `scope` changes (every rule's {@link EndpointRules.scopeReads}). */
  scopeKeys(keyId: string, scope: string): string[] {
    return this.scopes.flatMap((reads) => reads(scope).map((path) => cacheKey(keyId, path)));
  }
}
