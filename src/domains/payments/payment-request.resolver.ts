/**
 * `createPaymentRequest`, `cancelPaymentRequest`, `paymentRequest`, `paymentRequests`
 * and `unmatchedTransfers`: payment requests of the key's character, kept in the
 * gateway's own store (see payment-request.service.ts). Each resolver sees one key: a token
 * over several characters runs the fields naming a company with the key owning it, and
 * looks a reference up in every character's requests (`perCharacter`, see
 * `src/graph/execution/per-character.ts`).
 */
import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { GatewayError, missingKeyError } from '../../errors/gateway-error';
import { UpstreamCost } from '../../field-rules/cost';
import { CheckedBeforeOwner } from '../../field-rules/per-character';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';
import { checkFactoryOwned, fetchFactoryBankAccounts } from '../factories/factories.api';
import type { GatewayContext } from '../gateway-context';
import { paidAmount } from './payment-request.matching';
import type { PaymentCaller } from './payment-desk.types';
import type { PaymentDesk } from './payment-request.service';
import type { StoredRequest, StoredTransfer } from './payment-request.store';
import { CreatePaymentRequestInput, MatchedTransfer, PaymentRequest, PaymentStatus } from './payment-request.type';

/** The longest note, characters. */
const NOTE_MAX = 200;
/** The longest expiry, seconds (a year). */
const EXPIRES_MAX_SECONDS = 31_536_000;

/** A stored transfer as GraphQL returns it. */
export function toMatchedTransfer(t: StoredTransfer): MatchedTransfer {
  return { amount: t.amount, senderVban: t.senderVban, reference: t.reference, timestamp: new Date(t.timestamp) };
}

/** A stored request as GraphQL returns it. */
export function toPaymentRequest(r: StoredRequest): PaymentRequest {
  return {
    reference: r.reference,
    factoryId: r.factoryId,
    bankAccountId: r.bankAccountId,
    vban: r.vban,
    amount: r.amount,
    paidAmount: paidAmount(r),
    status: r.status,
    transfers: r.transfers.map(toMatchedTransfer),
    note: r.note,
    createdAt: new Date(r.createdAt),
    expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt),
    settledAt: r.settledAt === null ? null : new Date(r.settledAt),
  };
}

/**
 * The desk and the caller of an operation; watching the caller's accounts with open
 * requests resumes in the background (after a restart the gateway resumes by itself only
 * for keys the vault holds: a raw key's requests wait for their owner's call).
 *
 * @throws GatewayError `UNAUTHENTICATED` without a key, `INTERNAL_SERVER_ERROR` without a desk
 */
function deskOf(ctx: GatewayContext): { desk: PaymentDesk; caller: PaymentCaller } {
  const apiKey = ctx.apiKey;
  const keyId = ctx.session.keyId;
  if (!apiKey || !keyId) throw missingKeyError();
  const desk = ctx.domains?.payments;
  if (!desk) throw new GatewayError('INTERNAL_SERVER_ERROR', 'Payment requests are not available in this gateway.');
  const caller = { apiKey, keyId };
  // The answer reads the gateway's store, which any poll may change: a whole-response cache must not keep it.
  ctx.session.accounting.noteFreshness(0);
  // Not awaited: the first polls may wait for the key's budget, the answer does not.
  void desk.resume(caller).catch(() => undefined);
  return { desk, caller };
}

/**
 * The checks of `createPaymentRequest`'s input, before anything else (with several
 * characters, before the company's owner is looked up: see `@CheckedBeforeOwner`).
 *
 * @throws GatewayError `BAD_USER_INPUT` naming the argument
 */
function checkCreateInput(args: Record<string, unknown>): void {
  const input = args.input as CreatePaymentRequestInput;
  const expiresInSeconds = input.expiresInSeconds ?? null;
  if (!Number.isFinite(input.amount) || input.amount <= 0)
    throw new GatewayError('BAD_USER_INPUT', 'amount must be greater than 0.', { argument: 'input.amount' });
  if (expiresInSeconds !== null && (expiresInSeconds < 1 || expiresInSeconds > EXPIRES_MAX_SECONDS)) {
    throw new GatewayError('BAD_USER_INPUT', `expiresInSeconds must be from 1 to ${EXPIRES_MAX_SECONDS}.`, {
      argument: 'input.expiresInSeconds',
    });
  }
  if (input.note !== null && input.note !== undefined && [...input.note].length > NOTE_MAX)
    throw new GatewayError('BAD_USER_INPUT', `note may have at most ${NOTE_MAX} characters.`, {
      argument: 'input.note',
    });
}

/** Adds the `WINDOW_OVERRUN` warning of each account of `requests` whose transfers may be missing. */
async function warnAbout(
  ctx: GatewayContext,
  desk: PaymentDesk,
  owner: string,
  accounts: Iterable<string>,
): Promise<void> {
  for (const account of new Set(accounts)) {
    const warning = await desk.warningFor(owner, account);
    if (warning) ctx.warnings?.set(`WINDOW_OVERRUN:${account}`, { ...warning });
  }
}

const SOURCE = `Reads ${ENDPOINTS.factoryBankAccounts.route} (premium; scopes factory and factory.bankaccount; cached) to check the account and its vban.`;

/** The payment-request fields of Query and Mutation. */
@Resolver(() => PaymentRequest)
export class PaymentRequestResolver {
  /**
   * Creates a request for an account of the company. The account's scopes and premium are
   * checked by reading the company's accounts (the same endpoint family, scopes and premium as
   * `BankAccount.transactions`), before anything is stored.
   *
   * @throws GatewayError `BAD_USER_INPUT` for an invalid input, `CONFLICT` when the company has its most open requests, `NOT_FOUND` for an account the company does not have, and the upstream's errors
   */
  @UpstreamCost({ requests: 1, perCharacter: 'owner' })
  @CheckedBeforeOwner(checkCreateInput)
  @Mutation(() => PaymentRequest, {
    description: `Creates a payment request with a fresh reference; no upstream request beyond reading the account's vban (cached). ${SOURCE} Without premium or those scopes: the same errors as BankAccount.transactions, and nothing is stored. Amount greater than 0; expiresInSeconds 1..${EXPIRES_MAX_SECONDS}; note at most ${NOTE_MAX} characters (else BAD_USER_INPUT). At most PAYMENT_OPEN_REQUESTS_MAX (default 1000) open requests per company: one more is CONFLICT until one is paid, expires or is cancelled. From then on the account is polled (GET /factory/transactions/{bankId}/25/0, shared with transactionAdded) while it has open requests.`,
  })
  async createPaymentRequest(
    @Arg('input', () => CreatePaymentRequestInput, {
      description: 'The company, its account, the amount, an optional expiry and note.',
    })
    input: CreatePaymentRequestInput,
    @Ctx() ctx: GatewayContext,
  ): Promise<PaymentRequest> {
    const { desk, caller } = deskOf(ctx);
    checkCreateInput({ input });
    // The bound on open requests (PAYMENT_OPEN_REQUESTS_MAX) before any upstream request.
    await desk.checkRoom(caller.keyId, input.factoryId);
    const accounts = await fetchFactoryBankAccounts(ctx.session, input.factoryId);
    const account = accounts.find((each) => each.id === input.bankAccountId);
    if (!account)
      throw new GatewayError('NOT_FOUND', `The company ${input.factoryId} has no bank account ${input.bankAccountId}.`);
    const request = await desk.create(caller, {
      factoryId: input.factoryId,
      bankAccountId: account.id,
      vban: account.vban,
      amount: input.amount,
      expiresInSeconds: input.expiresInSeconds ?? null,
      note: input.note ?? null,
    });
    return toPaymentRequest(request);
  }

  /**
   * Cancels an open request.
   *
   * @throws GatewayError `NOT_FOUND` for an unknown reference, `CONFLICT` for one no longer open
   */
  @UpstreamCost({ requests: 1, perCharacter: 'find' })
  @Mutation(() => PaymentRequest, {
    description:
      "Cancels a PENDING or PARTIALLY_PAID request of the caller's character (CANCELLED; transfers that arrive later are listed by unmatchedTransfers). Unknown reference: NOT_FOUND; a request no longer open: CONFLICT. No upstream request of its own (resuming the polling of the caller's open requests may poll).",
  })
  async cancelPaymentRequest(
    @Arg('reference', () => String, {
      description: "The request's reference (case, separators and look-alike characters tolerated).",
    })
    reference: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<PaymentRequest> {
    const { desk, caller } = deskOf(ctx);
    return toPaymentRequest(await desk.cancel(caller.keyId, reference));
  }

  /** One request of the caller's character, or null. */
  @UpstreamCost({ requests: 1, perCharacter: 'find' })
  @Query(() => PaymentRequest, {
    nullable: true,
    description:
      "One payment request of the caller's character by reference (case and look-alike characters tolerated); null if unknown. Read from the gateway's store; resuming the polling of the caller's open requests may poll GET /factory/transactions/{bankId}/25/0. A request whose account received more transfers between two polls than the upstream shows (25 + skip 200) has a WINDOW_OVERRUN warning in extensions.warnings.",
  })
  async paymentRequest(
    @Arg('reference', () => String, {
      description: 'The reference (case, spaces, separators and look-alike characters tolerated).',
    })
    reference: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<PaymentRequest | null> {
    const { desk, caller } = deskOf(ctx);
    const request = await desk.get(caller.keyId, reference);
    if (!request) return null;
    await warnAbout(ctx, desk, caller.keyId, [request.bankAccountId]);
    return toPaymentRequest(request);
  }

  /** The requests of a company of the caller's character. */
  @UpstreamCost({ requests: 1, perCharacter: 'owner' })
  @Query(() => [PaymentRequest], {
    description: `The payment requests of one company of the caller's character, newest first. Checks the company with ${describeSource(ENDPOINTS.factoryList)} (cached); a company the character does not own: NOT_FOUND. WINDOW_OVERRUN warnings in extensions.warnings as for paymentRequest.`,
  })
  async paymentRequests(
    @Arg('factoryId', () => ID, { description: 'The company (Factory.id).' }) factoryId: string,
    @Arg('status', () => PaymentStatus, { nullable: true, description: 'Only requests of this status; omitted: all.' })
    status: PaymentStatus | null | undefined,
    @Ctx() ctx: GatewayContext,
  ): Promise<PaymentRequest[]> {
    const { desk, caller } = deskOf(ctx);
    await checkFactoryOwned(ctx.session, factoryId);
    const requests = await desk.list(caller.keyId, factoryId, status ?? null);
    await warnAbout(
      ctx,
      desk,
      caller.keyId,
      requests.map((r) => r.bankAccountId),
    );
    return requests.map(toPaymentRequest);
  }

  /** Incoming transfers of a company that matched no request. */
  @UpstreamCost({ requests: 1, perCharacter: 'owner' })
  @Query(() => [MatchedTransfer], {
    description: `Incoming transfers of the company's accounts seen by the gateway that match no request, newest first (the last 100, from the first request on each account on). Checks the company with ${describeSource(ENDPOINTS.factoryList)} (cached). When more transfers arrived between two polls than the upstream shows (25 + skip 200), transfers may be missing: extensions.warnings has WINDOW_OVERRUN for that account.`,
  })
  async unmatchedTransfers(
    @Arg('factoryId', () => ID, { description: 'The company (Factory.id).' }) factoryId: string,
    @Ctx() ctx: GatewayContext,
  ): Promise<MatchedTransfer[]> {
    const { desk, caller } = deskOf(ctx);
    await checkFactoryOwned(ctx.session, factoryId);
    const requests = await desk.list(caller.keyId, factoryId, null);
    await warnAbout(
      ctx,
      desk,
      caller.keyId,
      requests.map((r) => r.bankAccountId),
    );
    return (await desk.unmatched(caller.keyId, factoryId)).map(toMatchedTransfer);
  }
}
