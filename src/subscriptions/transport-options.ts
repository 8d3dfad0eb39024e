/**
 * What the subscription transports (graphql-ws and graphql-sse, see transports.ts) are
 * built from.
 */
import type { IncomingMessage } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { GatewayServices } from '../context';
import type { OperationReport } from '../observability/operation.plugin';
import type { GatewayTracing } from '../observability/tracing';
import type { RequestPipeline } from '../pipeline/pipeline';
import type { LiveQueries } from './live-queries';
import type { StreamBounds } from './slow-readers';
import type { SseReservationLimits } from './sse-reservations';
import type { SubscriptionService } from './subscription-service';
import type { TokenStreams } from './token-streams';

/** What the transports need. */
export interface SubscriptionTransportOptions {
  /** The schema operations execute on. */
  schema: GraphQLSchema;
  /** What a context is built from. */
  services: GatewayServices;
  /** The subscription limits and pollers. */
  subscriptions: SubscriptionService;
  /** The gateway's request pipeline (the same one HTTP runs). */
  pipeline: RequestPipeline;
  /** Runs queries marked `@live` (and every other query and mutation). */
  liveQueries: LiveQueries;
  /** Close a WebSocket that sent no `connection_init` within this time, ms. */
  connectionInitTimeoutMs: number;
  /** Most queries and mutations in flight at once on one WebSocket (`OPERATIONS_MAX_PER_CONNECTION`, see operation-cap.ts). */
  operationsMaxPerConnection: number;
  /** Largest subscribe message (graphql-ws) or body (graphql-sse), bytes (`MAX_BODY_BYTES`): larger is refused with 413 (the pipeline's `body-size` step). */
  maxBodyBytes: number;
  /** Interval of WebSocket pings (a peer that misses one is dropped) and SSE keep-alive comments, ms. */
  keepAliveMs: number;
  /** When a stream whose client does not read is cut (`STREAM_MAX_QUEUED_BYTES`, `STREAM_DRAIN_TIMEOUT_MS`, see slow-readers.ts). */
  streamBounds: StreamBounds;
  /** An SSE connection whose sent bytes stay unacknowledged this long is closed by the kernel, ms (`SSE_DEAD_PEER_TIMEOUT_MS`, see dead-peers.ts); none or 0: left to the system. */
  sseDeadPeerTimeoutMs?: number;
  /** Ends the streams of access tokens that are revoked or expire (token-streams.ts); none without a vault. */
  tokenStreams?: TokenStreams;
  /** Where the transports log. */
  logger?: Logger;
  /** Lifetime and caps of graphql-sse reservations not yet connected (`SSE_RESERVATION_TTL_MS`, …); none: unbounded. */
  sseReservations?: SseReservationLimits;
  /** Traces each operation in a span of its own when tracing is on (src/observability/tracing.ts). */
  tracing?: GatewayTracing;
  /** Counts and logs each operation at its first answer, as over HTTP (`reportOperation` of src/observability/operation.plugin.ts). */
  reportOperation?: (report: OperationReport) => void;
  /** The client address of a request (`TRUSTED_PROXIES`, see src/http/client-address.ts); none: the socket's. */
  clientAddress?: (request: IncomingMessage) => string;
}
