import { missingKeyError } from '../errors/gateway-error';
import type { UpstreamClient } from './client';
import type { Endpoint, PathParams } from './endpoints';

/**
 * One GraphQL operation's view of the upstream: the caller's key bound to the shared
 * {@link UpstreamClient}. Every upstream request of an operation goes through here.
 *
 * When to use: create one per operation in the context; the domain `*.api.ts`
 * functions take it. Loaders above it make each distinct request at most once.
 *
 * @throws GatewayError `UNAUTHENTICATED` from {@link get}/{@link post} when the
 *   operation came without a bearer key, before any request is sent.
 */
export class UpstreamSession {
  /** Upstream requests this operation sent (for accounting and tests). */
  requests = 0;

  constructor(
    private readonly client: UpstreamClient,
    /** The caller's API key, or null when the request had no bearer key. */
    readonly apiKey: string | null,
  ) {}

  /** GET an endpoint; resolves to the parsed body. */
  get(endpoint: Endpoint, params?: PathParams): Promise<unknown> {
    return this.send(endpoint, params, undefined);
  }

  /** POST a JSON body to an endpoint; resolves to the parsed body or text. */
  post(endpoint: Endpoint, body: unknown): Promise<unknown> {
    return this.send(endpoint, undefined, body);
  }

  private async send(endpoint: Endpoint, params: PathParams | undefined, body: unknown): Promise<unknown> {
    if (!this.apiKey) throw missingKeyError();
    this.requests += 1;
    return this.client.call({ endpoint, params, apiKey: this.apiKey, body });
  }
}
