/**
 * The GraphQL types of payment requests: a request, its status, the transfers matched
 * to it, the input that creates one and the event of `paymentReceived`.
 */
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** Where a payment request stands. */
export enum PaymentStatus {
  PENDING = 'PENDING',
  PARTIALLY_PAID = 'PARTIALLY_PAID',
  PAID = 'PAID',
  OVERPAID = 'OVERPAID',
  EXPIRED = 'EXPIRED',
  CANCELLED = 'CANCELLED',
}

registerEnumType(PaymentStatus, {
  name: 'PaymentStatus',
  description:
    'Where a payment request stands: PENDING (nothing matched), PARTIALLY_PAID (less than the amount), PAID (exactly the amount), OVERPAID (more), EXPIRED (expiresAt passed before it was paid), CANCELLED (cancelPaymentRequest).',
  valuesConfig: {
    PENDING: { description: 'No transfer matched yet.' },
    PARTIALLY_PAID: { description: 'Matched transfers add up to less than the amount.' },
    PAID: { description: 'Matched transfers add up to the amount (to the cent).' },
    OVERPAID: { description: 'Matched transfers add up to more than the amount.' },
    EXPIRED: { description: 'expiresAt passed while the request was PENDING or PARTIALLY_PAID.' },
    CANCELLED: { description: 'Cancelled by cancelPaymentRequest; later transfers are listed as unmatched.' },
  },
});

/** The kind of a `paymentReceived` event: the status a request moved to. */
export enum PaymentEventKind {
  PARTIALLY_PAID = 'PARTIALLY_PAID',
  PAID = 'PAID',
  OVERPAID = 'OVERPAID',
  EXPIRED = 'EXPIRED',
}

registerEnumType(PaymentEventKind, {
  name: 'PaymentEventKind',
  description: 'The status a payment request moved to.',
  valuesConfig: {
    PARTIALLY_PAID: { description: 'A transfer matched, the sum is still below the amount.' },
    PAID: { description: 'The sum reached the amount exactly.' },
    OVERPAID: { description: 'The sum went above the amount.' },
    EXPIRED: { description: 'expiresAt passed before the request was paid.' },
  },
});

/** One incoming transfer, as matched (or not) to a request. */
@ObjectType({
  description:
    'One incoming bank transfer the gateway saw on a company account (from GET /factory/transactions/{bankId}/25/{skip}; premium, scopes factory and factory.bankaccount).',
})
export class MatchedTransfer {
  @Field(() => Float, { description: 'The amount transferred, as BankTransaction.amount.' })
  amount!: number;

  @Field(() => String, { nullable: true, description: "VBAN of the payer's account, or null." })
  senderVban!: string | null;

  @Field(() => String, { nullable: true, description: 'The reference text as the payer wrote it, or null.' })
  reference!: string | null;

  @Field(() => Date, { description: 'When the transfer was booked upstream.' })
  timestamp!: Date;
}

/** A payment request as clients see it. */
@ObjectType({
  description:
    'An amount a company expects on one of its bank accounts, identified by a reference the payer writes in the transfer.',
})
export class PaymentRequest {
  @Field(() => String, {
    description:
      'The reference to put in the transfer: short, case-insensitive, with a check character (no 0/O/1/I/L).',
  })
  reference!: string;

  @Field(() => ID, { description: 'The company (Factory.id) the request is for.' })
  factoryId!: string;

  @Field(() => ID, { description: 'The company bank account (BankAccount.id) the transfer goes to.' })
  bankAccountId!: string;

  @Field(() => String, { description: "The VBAN to pay to (the bank account's vban)." })
  vban!: string;

  @Field(() => Float, { description: 'The amount asked for, greater than 0.' })
  amount!: number;

  @Field(() => Float, { description: 'The sum of the matched transfers.' })
  paidAmount!: number;

  @Field(() => PaymentStatus, { description: 'Where the request stands (see PaymentStatus).' })
  status!: PaymentStatus;

  @Field(() => [MatchedTransfer], {
    description: 'The transfers matched to this request, oldest first, each counted once.',
  })
  transfers!: MatchedTransfer[];

  @Field(() => String, {
    nullable: true,
    description: 'The note given at creation (at most 200 characters), or null; never sent upstream.',
  })
  note!: string | null;

  @Field(() => Date, { description: 'When the request was created.' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the request expires unless paid, or null (never).' })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When status became PAID or OVERPAID.' })
  settledAt!: Date | null;
}

/** The input of `createPaymentRequest`. */
@InputType({ description: 'What a new payment request asks for.' })
export class CreatePaymentRequestInput {
  @Field(() => ID, { description: "The company (Factory.id) of the key's character." })
  factoryId!: string;

  @Field(() => ID, { description: 'A bank account of the company (BankAccount.id).' })
  bankAccountId!: string;

  @Field(() => Float, { description: 'Greater than 0.' })
  amount!: number;

  @Field(() => Int, { nullable: true, description: 'Omitted: never expires. From 1 to 31536000 (a year).' })
  expiresInSeconds?: number | null;

  @Field(() => String, {
    nullable: true,
    description: 'At most 200 characters; returned as given, never sent upstream.',
  })
  note?: string | null;
}

/** The event of `paymentReceived`. */
@ObjectType({ description: "A change of a payment request's status." })
export class PaymentEvent {
  @Field(() => PaymentEventKind, { description: 'The status the request moved to.' })
  kind!: PaymentEventKind;

  @Field(() => PaymentRequest, { description: 'The request after the change.' })
  request!: PaymentRequest;

  @Field(() => Date, {
    description: 'When the gateway saw the change (the poll that found the transfer, or the expiry).',
  })
  observedAt!: Date;
}
