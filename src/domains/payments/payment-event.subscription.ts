/**
 * `paymentReceived(factoryId)`: status changes of a company's payment requests, from
 * the payment desk's events (published by whichever replica matched the transfer, so
 * every subscriber on every replica gets each change once). No poller of its own: the
 * accounts with open requests are polled by the `transactionAdded` pollers.
 */
import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import { GatewayError, missingKeyError } from '../../errors/gateway-error';
import { PerCharacter } from '../../field-rules/per-character';
import { describePolling } from '../feeds/describe';
import { noTransportError, releasing } from '../feeds/feed';
import { ENDPOINTS } from '../../upstream/endpoints';
import { checkFactoryOwned } from '../factories/factories.api';
import type { SubscriptionContext } from '../gateway-context';
import { toPaymentRequest } from './payment-request.resolver';
import type { StoredEvent } from './payment-request.store';
import { PaymentEvent, PaymentEventKind } from './payment-request.type';

/**
 * Opens the stream of a company's payment events for the subscriber.
 *
 * @throws GatewayError `BAD_USER_INPUT` over plain HTTP, `UNAUTHENTICATED` without a key, `RATE_LIMITED` over the subscription limits, `NOT_FOUND` for a company the character does not own
 */
async function openPaymentEvents(
  context: SubscriptionContext,
  factoryId: string,
): Promise<AsyncIterableIterator<StoredEvent>> {
  if (!context.subscription) throw noTransportError();
  const apiKey = context.apiKey;
  const keyId = context.session.keyId;
  if (!apiKey || !keyId) throw missingKeyError();
  const desk = context.domains?.payments;
  if (!desk) throw new GatewayError('INTERNAL_SERVER_ERROR', 'Payment requests are not available in this gateway.');
  // Counted against the key's and the connection's subscription limits like every other.
  const release = context.subscription.service.count(context);
  try {
    await checkFactoryOwned(context.session, factoryId);
    const events = desk.events(keyId, factoryId);
    await desk.resume({ apiKey, keyId });
    return releasing(events, release);
  } catch (error) {
    release();
    throw error;
  }
}

/** `paymentReceived`. */
@Resolver()
export class PaymentEventSubscriptionResolver {
  /** One event per status change of a request of the company; a token over several characters: the events of the company's owner. */
  @PerCharacter({ owner: 'factories', arg: 'factoryId' })
  @Subscription(() => PaymentEvent, {
    description: `Status changes of the company's payment requests (PARTIALLY_PAID, PAID, OVERPAID, EXPIRED), one event each per subscriber, polled within the key's budget (one poller per account, shared with transactionAdded). Accounts with open requests are polled at GET /factory/transactions/{bankId}/25/0 (premium; scopes factory and factory.bankaccount): ${describePolling(ENDPOINTS.factoryTransactions)} Further pages (up to skip 200) only when the newest page shows that transfers were missed. A company the key's character does not own: NOT_FOUND. Counts against SUBSCRIPTIONS_MAX_PER_KEY and SUBSCRIPTIONS_MAX_PER_CONNECTION like every subscription (over: RATE_LIMITED).`,
    subscribe: ({ args, context }) =>
      openPaymentEvents(context as SubscriptionContext, (args as { factoryId: string }).factoryId),
  })
  paymentReceived(
    @Root() event: StoredEvent,
    @Arg('factoryId', () => ID, { description: "The company (Factory.id) of the key's character." }) _factoryId: string,
    @Ctx() ctx: SubscriptionContext,
  ): PaymentEvent {
    ctx.subscription?.refresh();
    return {
      kind: PaymentEventKind[event.kind],
      request: toPaymentRequest(event.request),
      observedAt: new Date(event.observedAt),
    };
  }
}
