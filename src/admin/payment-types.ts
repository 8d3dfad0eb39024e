/**
 * The administration graph's view of payment requests and unmatched transfers (read from the
 * payment store, never upstream), emitted to `schema.admin.graphql` with admin-types.ts.
 */
import { Field, Float, ID, InputType, ObjectType } from 'type-graphql';
import { PaymentStatus } from '../domains/payments/payment-request.type';
import type { StoredRequest } from '../domains/payments/payment-request.store';

/** A payment request as the console lists it. */
@ObjectType({ description: 'A payment request of a vault character (from the payment store; no upstream request).' })
export class AdminPaymentRequest {
  /** Whose. */
  @Field(() => String, { description: 'The vault character that created it.' })
  character!: string;

  /** Reference. */
  @Field(() => ID, { description: 'Its reference (what the payer writes in the transfer).' })
  reference!: string;

  /** Company. */
  @Field(() => ID, { description: 'The company it is for.' })
  factoryId!: string;

  /** Amount. */
  @Field(() => Float, { description: 'The amount asked for.' })
  amount!: number;

  /** Paid. */
  @Field(() => Float, { description: 'The sum of the transfers matched to it so far.' })
  paid!: number;

  /** Status. */
  @Field(() => PaymentStatus, { description: 'Where it stands.' })
  status!: PaymentStatus;

  /** Note. */
  @Field(() => String, { nullable: true, description: "The creator's note, or null." })
  note!: string | null;

  /** Created. */
  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;

  /** Expires. */
  @Field(() => Date, { nullable: true, description: 'When it expires, or null.' })
  expiresAt!: Date | null;
}

/** A transfer no request matched. */
@ObjectType({
  description:
    'A transfer to a company account that matched no payment request (the newest 100 per company; no upstream request).',
})
export class AdminUnmatchedTransfer {
  /** Id. */
  @Field(() => ID, {
    description:
      'Its id (trf_…), derived from its identity (sender, reference text, amount, booking time): stable across reads, restarts and replicas; identical transfers share it. What assignTransfer takes.',
  })
  id!: string;

  /** Whose. */
  @Field(() => String, { description: 'The vault character whose account received it.' })
  character!: string;

  /** Company. */
  @Field(() => ID, { description: 'The company.' })
  factoryId!: string;

  /** Amount. */
  @Field(() => Float, { description: 'The amount, as the StateV API booked it.' })
  amount!: number;

  /** Sender. */
  @Field(() => String, { nullable: true, description: "The payer's VBAN, or null." })
  senderVban!: string | null;

  /** Reference text. */
  @Field(() => String, { nullable: true, description: "The transfer's reference text as written, or null." })
  reference!: string | null;

  /** When. */
  @Field(() => Date, { description: 'When it was booked.' })
  bookedAt!: Date;
}

/** What `assignTransfer` takes. */
@InputType({
  description: 'An unmatched transfer of a company and the open payment request of the same company it pays.',
})
export class AssignTransferInput {
  /** Whose. */
  @Field(() => String, {
    description: 'The vault character whose account received the transfer (and who created the request).',
  })
  character!: string;

  /** Company. */
  @Field(() => ID, { description: "The company (one the character's key check found)." })
  factoryId!: string;

  /** Transfer. */
  @Field(() => ID, { description: "The unmatched transfer's id (AdminUnmatchedTransfer.id)." })
  transferId!: string;

  /** Request. */
  @Field(() => ID, { description: 'The reference of the payment request it pays (PENDING or PARTIALLY_PAID).' })
  reference!: string;
}

/** A stored request as the administration graph's type. */
export function adminRequest(character: string, request: StoredRequest): AdminPaymentRequest {
  const paid = request.transfers.reduce((sum, transfer) => sum + transfer.amount, 0);
  const { reference, factoryId, amount, status, note } = request;
  return Object.assign(new AdminPaymentRequest(), {
    character,
    reference,
    factoryId,
    amount,
    paid,
    status,
    note,
    createdAt: new Date(request.createdAt),
    expiresAt: request.expiresAt === null ? null : new Date(request.expiresAt),
  });
}
