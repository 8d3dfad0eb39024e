/**
 * The administration graph: its resolvers and schema (built from the TypeGraphQL classes of
 * admin-types.ts, apart from the public schema), emitted to `schema.admin.graphql`.
 * Every mutation writes an audit entry, done or refused.
 */
import type { GraphQLSchema } from 'graphql';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver, buildSchema, emitSchemaDefinitionFile } from 'type-graphql';
import { isGatewayError } from '../errors/gateway-error';
import type { AdminService } from './admin-service';
import type { ConsoleAuth } from './console-auth';
import {
  AccessTokenSummary,
  AddVaultKeyInput,
  AuditEntry,
  CreateAccessTokenInput,
  CreatedAccessToken,
  Delivery,
  KeyBudget,
  VaultCharacter,
} from './admin-types';
import { Alert, CreateAlertInput } from './alert-types';
import { CacheSummary } from './overview-types';
import { AdminPaymentRequest, AdminUnmatchedTransfer, AssignTransferInput } from './payment-types';
import { EditorToken, SiteDocumentEditorInput } from './editor-types';

/** One administration operation's context. */
export interface AdminContext {
  /** The service the resolvers call. */
  readonly admin: AdminService;
  /** The audit log. */
  readonly auth: ConsoleAuth;
  /** Who is acting: `session:<id>` or `token:<id>`. */
  readonly actor: string;
  /** The gateway's own origin (the console's): `siteDocumentEditor` binds its tokens to it. */
  readonly origin: string;
}

/** Runs a mutation and writes its audit entry: `done`, or `refused: <code>` (an unexpected failure counts as INTERNAL_SERVER_ERROR). */
async function audited<T>(
  context: AdminContext,
  action: string,
  target: string | null,
  run: () => Promise<T>,
  targetOf: (result: T) => string | null = () => target,
): Promise<T> {
  try {
    const result = await run();
    await context.auth.audit(context.actor, action, targetOf(result));
    return result;
  } catch (error) {
    await context.auth.audit(
      context.actor,
      action,
      target,
      `refused: ${isGatewayError(error) ? error.code : 'INTERNAL_SERVER_ERROR'}`,
    );
    throw error;
  }
}

/** The administration graph's queries and mutations. */
@Resolver()
export class AdminResolver {
  /** The vault's characters. */
  @Query(() => [VaultCharacter], {
    description:
      "The vault's characters, by name. Keys and secrets are write-only: no field ever returns them. No upstream request.",
  })
  vaultCharacters(@Ctx() context: AdminContext): Promise<VaultCharacter[]> {
    return context.admin.vaultCharacters();
  }

  /** Every token. */
  @Query(() => [AccessTokenSummary], {
    description: 'Every access token in the vault, newest first. Never the token itself. No upstream request.',
  })
  accessTokens(@Ctx() context: AdminContext): Promise<AccessTokenSummary[]> {
    return context.admin.accessTokens();
  }

  /** Budgets. */
  @Query(() => [KeyBudget], {
    description:
      "Each vault character's upstream budget as it stands now on this replica, with its last hour. No upstream request.",
  })
  keyBudgets(@Ctx() context: AdminContext): Promise<KeyBudget[]> {
    return context.admin.keyBudgets();
  }

  /** The cache's lookups. */
  @Query(() => CacheSummary, {
    description:
      "The upstream-answer cache's lookups since this replica started, and their hit ratio. No upstream request.",
  })
  cacheSummary(@Ctx() context: AdminContext): CacheSummary {
    return context.admin.cacheSummary();
  }

  /** Payment requests. */
  @Query(() => [AdminPaymentRequest], {
    description:
      "Every vault character's payment requests, newest first, for the companies its key check found (keys added in the console). No upstream request.",
  })
  async paymentRequests(@Ctx() context: AdminContext): Promise<AdminPaymentRequest[]> {
    return (await context.admin.payments()).requests;
  }

  /** Unmatched transfers. */
  @Query(() => [AdminUnmatchedTransfer], {
    description:
      "Transfers to the characters' companies that matched no payment request, newest first (the newest 100 per company). No upstream request.",
  })
  async unmatchedTransfers(@Ctx() context: AdminContext): Promise<AdminUnmatchedTransfer[]> {
    return (await context.admin.payments()).unmatched;
  }

  /** Every alert rule. */
  @Query(() => [Alert], {
    description:
      'Every alert rule, oldest first: the URL with its secret part replaced by an ellipsis, never a signing secret. No upstream request.',
  })
  alerts(@Ctx() context: AdminContext): Promise<Alert[]> {
    return context.admin.alerts();
  }

  /** Deliveries. */
  @Query(() => [Delivery], {
    description:
      'Deliveries of alerts (pending, delivered or failed) and of payment webhooks (waiting in their outbox: delivered ones leave it), newest first. No upstream request.',
  })
  deliveries(
    @Ctx() context: AdminContext,
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'How many, 1..200.' })
    first: number | null,
  ): Promise<Delivery[]> {
    return context.admin.deliveries(first);
  }

  /** The audit log. */
  @Query(() => [AuditEntry], {
    description:
      'Administrative actions, newest first: who (session or token id), what, when, on what and how it ended. Never a key, secret or token.',
  })
  auditLog(
    @Ctx() context: AdminContext,
    @Arg('first', () => Int, { nullable: true, defaultValue: 50, description: 'How many, 1..200.' })
    first: number | null,
  ): Promise<AuditEntry[]> {
    return context.admin.auditLog(first);
  }

  /** Adds a key. */
  @Mutation(() => VaultCharacter, {
    description:
      'Adds (or replaces) a StateV API key, and optionally its API secret, under a name. The key is tried upstream once first (GET /factory/list/, scope factory, within its own budget): a wrong key is refused with what the StateV API answered (FORBIDDEN), a rate-limited one with RATE_LIMITED and retryAfterSeconds, and nothing is stored.',
  })
  addVaultKey(
    @Ctx() context: AdminContext,
    @Arg('input', () => AddVaultKeyInput, { description: 'The name, key and secret (write-only).' })
    input: AddVaultKeyInput,
  ): Promise<VaultCharacter> {
    return audited(context, 'addVaultKey', input.name, () => context.admin.addVaultKey(input));
  }

  /** Removes a key. */
  @Mutation(() => Boolean, {
    description: 'Removes a key; tokens covering it are refused from then on (within 1 s on every replica).',
  })
  removeVaultKey(
    @Ctx() context: AdminContext,
    @Arg('name', () => String, { description: "The character's name." }) name: string,
  ): Promise<boolean> {
    return audited(context, 'removeVaultKey', name, () => context.admin.removeVaultKey(name));
  }

  /** Creates a token. */
  @Mutation(() => CreatedAccessToken, {
    description:
      'Creates an access token. The token is in the answer once and never again; it works at once (within 1 s on every replica).',
  })
  createAccessToken(
    @Ctx() context: AdminContext,
    @Arg('input', () => CreateAccessTokenInput, {
      description: 'Its characters, grants, lifetime, origin and budget share.',
    })
    input: CreateAccessTokenInput,
  ): Promise<CreatedAccessToken> {
    return audited(
      context,
      'createAccessToken',
      null,
      () => context.admin.createAccessToken(input),
      (created) => created.summary.id,
    );
  }

  /** Revokes a token. */
  @Mutation(() => AccessTokenSummary, { description: 'Revokes a token; it is refused within 1 s on every replica.' })
  revokeAccessToken(
    @Ctx() context: AdminContext,
    @Arg('id', () => ID, { description: "The token's id (tok_…)." }) id: string,
  ): Promise<AccessTokenSummary> {
    return audited(context, 'revokeAccessToken', id, () => context.admin.revokeAccessToken(id));
  }

  /** Creates an alert rule. */
  @Mutation(() => Alert, {
    description:
      "Creates an alert rule, watched from then on (and after restarts) on the pollers the subscriptions use. Checked before any upstream request: the character, the inputs of its kind (BAD_USER_INPUT naming the missing one), the URL (https; plain http only to a loopback address; no private, link-local or metadata address after DNS). RENT_OVERDUE then reads the building's tenants once (within the key's budget): a key without the scope building.tenants.activity is refused with FORBIDDEN naming it. A WEBHOOK rule's signingSecret is in this answer only.",
  })
  createAlert(
    @Ctx() context: AdminContext,
    @Arg('input', () => CreateAlertInput, { description: 'The rule.' }) input: CreateAlertInput,
  ): Promise<Alert> {
    return audited(
      context,
      'createAlert',
      input.character,
      () => context.admin.createAlert(input),
      (created) => created.id,
    );
  }

  /** Deletes an alert rule. */
  @Mutation(() => Boolean, {
    description:
      'Deletes an alert rule (its polls stop within 1 s on every replica). NOT_FOUND when there is none of that id.',
  })
  deleteAlert(
    @Ctx() context: AdminContext,
    @Arg('id', () => ID, { description: "The rule's id (alr_…)." }) id: string,
  ): Promise<boolean> {
    return audited(context, 'deleteAlert', id, () => context.admin.deleteAlert(id));
  }

  /** Assigns an unmatched transfer. */
  @Mutation(() => AdminPaymentRequest, {
    description:
      'Moves an unmatched transfer onto an open payment request of the same company, as if it had matched: the request becomes PARTIALLY_PAID, PAID or OVERPAID, its payment.* webhooks and events go out as usual, and the transfer leaves unmatchedTransfers (once, across restarts and replicas). NOT_FOUND for an unknown character, company, transfer or request; CONFLICT when the request is no longer open. No upstream request.',
  })
  assignTransfer(
    @Ctx() context: AdminContext,
    @Arg('input', () => AssignTransferInput, { description: 'The transfer and the request.' })
    input: AssignTransferInput,
  ): Promise<AdminPaymentRequest> {
    return audited(context, 'assignTransfer', `${input.transferId} -> ${input.reference}`, () =>
      context.admin.assignTransfer(input),
    );
  }

  /** Mints the console's site-document editor token. */
  @Mutation(() => EditorToken, {
    description:
      "Makes a short-lived access token (15 minutes) for the console's site-documents page, which reads and writes the documents on the public graph (/graphql) with it: there they spend the character key's upstream budget, as every site-document read and write must, while this mutation spends none (a vault write; the company is checked against what addVaultKey's key check found). Grants: factory:<factoryId> and, when name is given, write:siteDocument:<name>; bound to the gateway's own origin; budget share the key's own limit; labelled \"console: site documents\" in accessTokens. BAD_USER_INPUT for an unknown character, a company it does not own (or whose companies are unknown: add the key in the console) or a bad name.",
  })
  siteDocumentEditor(
    @Ctx() context: AdminContext,
    @Arg('input', () => SiteDocumentEditorInput, { description: 'The character, the company and the document.' })
    input: SiteDocumentEditorInput,
  ): Promise<EditorToken> {
    return audited(
      context,
      'siteDocumentEditor',
      `${input.factoryId}${input.name ? `/${input.name}` : ''}`,
      () => context.admin.siteDocumentEditor(input, context.origin),
      (created) => `${created.id} ${input.factoryId}${input.name ? `/${input.name}` : ''}`,
    );
  }

  /** Redelivers. */
  @Mutation(() => Delivery, {
    description:
      "Makes a delivery due now (attempted within its outbox's next round): an alert's whatever its status, a payment webhook's while it waits (a delivered one has left its outbox: NOT_FOUND).",
  })
  redeliver(
    @Ctx() context: AdminContext,
    @Arg('deliveryId', () => ID, { description: "The delivery's id." }) deliveryId: string,
  ): Promise<Delivery> {
    return audited(context, 'redeliver', deliveryId, () => context.admin.redeliver(deliveryId));
  }
}

let built: Promise<GraphQLSchema> | undefined;

/** Builds the administration schema once per process. */
export function buildAdminSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({ resolvers: [AdminResolver], validate: false }).then((schema) => {
    const query = schema.getQueryType();
    if (query)
      query.description =
        'The administration graph (/admin/graphql): the vault, tokens, budgets, alert rules, deliveries and the audit log. Answers only a console session or a token with the admin grant; no query sends an upstream request.';
    const mutation = schema.getMutationType();
    if (mutation)
      mutation.description =
        'Changes to the vault, tokens, alert rules and payments. Every mutation writes an audit entry; only addVaultKey (its one key check) and createAlert of a RENT_OVERDUE rule (its one scope check) send an upstream request (the token siteDocumentEditor makes spends budget on the public graph, not here).';
    return schema;
  });
  return built;
}

/** Writes the administration schema as SDL (`schema.admin.graphql`). */
export async function emitAdminSchema(path: string): Promise<void> {
  await emitSchemaDefinitionFile(path, await buildAdminSchema());
}
