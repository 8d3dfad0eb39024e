/**
 * The administration graph's view of payment requests and unmatched transfers (read from the
 * payment store, never upstream), emitted to `schema.admin.graphql` with admin-types.ts.
 */
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { PaymentStatus } from '../domains/payments/payment-request.type';

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
