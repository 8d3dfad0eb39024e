/**
 * The administration graph's types (served at `/admin/graphql`, emitted to
 * `schema.admin.graphql`): a compatible superset of the contract's `next/admin.graphql`.
 * No type has a field that could hold a StateV key or secret; a token is in
 * {@link CreatedAccessToken} once. The alert rule types are in alert-types.ts.
 */
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { BudgetSample } from './overview-types';

/** A character in the vault. */
@ObjectType({
  description:
    'A StateV character whose API key the vault holds. Keys and secrets are write-only: no field ever returns them.',
})
export class VaultCharacter {
  /** The vault entry's id. */
  @Field(() => ID, { description: "The vault entry's id (key_…)." })
  id!: string;

  /** The name given when the key was added. */
  @Field(() => String, {
    description: 'The name given when the key was added (1-64 letters, digits, ".", "_" or "-").',
  })
  name!: string;

  /** When it was added (or last replaced). */
  @Field(() => Date, { description: 'When the key was added, or last replaced.' })
  addedAt!: Date;

  /** True when its API secret is stored too. */
  @Field(() => Boolean, { description: "True when the key's API secret is stored with it (never the secret itself)." })
  hasSecret!: boolean;

  /** Companies its key check found, or null. */
  @Field(() => [ID], {
    nullable: true,
    description:
      "The ids of the companies the character owns, as addVaultKey's key check found them (for factory:<id> grants); null when the key was added with the command line (never checked). No upstream request.",
  })
  companies!: string[] | null;
}

/** What `addVaultKey` takes. */
@InputType({
  description:
    'A StateV API key to add to the vault under a name, with its API secret if any. Checked once upstream (GET /factory/list/, scope factory) before it is stored.',
})
export class AddVaultKeyInput {
  /** The name. */
  @Field(() => String, {
    description:
      'The name to keep it under: 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit. An existing key of that name is replaced.',
  })
  name!: string;

  /** The key. */
  @Field(() => String, { description: 'The StateV API key (write-only: never returned, logged or traced).' })
  key!: string;

  /** The secret. */
  @Field(() => String, {
    nullable: true,
    description: 'The StateV API secret, for premium endpoints (write-only: never returned, logged or traced).',
  })
  secret?: string | null;
}

/** A token as listed. */
@ObjectType({ description: 'An access token as the vault lists it. Never the token itself.' })
export class AccessTokenSummary {
  /** Its id. */
  @Field(() => ID, { description: "The token's id (tok_…)." })
  id!: string;

  /** Names of its characters. */
  @Field(() => [String], {
    description:
      'Names of the vault characters it covers (empty for an admin-only token; a removed key shows as its id).',
  })
  characters!: string[];

  /** Grants as written. */
  @Field(() => [String], {
    description:
      'Its grants as written (read, read:Type.field, factory:<id>, write:siteDocument:<name>, write:option:<slot>, write:payments, subscribe, admin).',
  })
  grants!: string[];

  /** When it was created. */
  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;

  /** When it expires. */
  @Field(() => Date, { nullable: true, description: 'When it stops working.' })
  expiresAt!: Date | null;

  /** When it was revoked. */
  @Field(() => Date, { nullable: true, description: 'When it was revoked, or null.' })
  revokedAt!: Date | null;

  /** When a gateway last accepted it. */
  @Field(() => Date, { nullable: true, description: 'When a gateway last accepted it (recorded every 10 s), or null.' })
  lastUsedAt!: Date | null;

  /** The browser origin it is bound to. */
  @Field(() => String, {
    nullable: true,
    description: 'The browser origin it is bound to (scheme://host[:port]), or null.',
  })
  origin!: string | null;

  /** Its share of its key's budget. */
  @Field(() => Int, {
    nullable: true,
    description: "Upstream requests per window of each of its keys' budgets it may start, or null for no share.",
  })
  budgetShare!: number | null;

  /** What made it, when not a person. */
  @Field(() => String, {
    nullable: true,
    description:
      'What made it when not a person: "console: site documents" for the short-lived tokens siteDocumentEditor makes for the console page. Null for tokens made with createAccessToken or tokens create.',
  })
  label!: string | null;
}

/** What `createAccessToken` takes. */
@InputType({
  description:
    'A new access token: its characters, grants, lifetime, and optionally a browser origin and a budget share.',
})
export class CreateAccessTokenInput {
  /** Character names. */
  @Field(() => [String], {
    description: 'Names of vault characters it covers (at least one, unless its only grant is admin).',
  })
  characters!: string[];

  /** Grants. */
  @Field(() => [String], {
    description:
      'Grants as the CLI takes them: read, read:Type.field, factory:<id>, write:siteDocument:<name>, write:option:<slot>, write:payments, subscribe, admin. A factory:<id> grant must name a company one of its characters owns.',
  })
  grants!: string[];

  /** Lifetime. */
  @Field(() => String, { description: "A number and s, m, h, d or w, as the CLI's --expires-in (e.g. 1h, 30d)." })
  expiresIn!: string;

  /** Origin. */
  @Field(() => String, {
    nullable: true,
    description:
      'A browser origin (scheme://host[:port]) the token is bound to: requests from any other origin are refused.',
  })
  origin?: string | null;

  /** Budget share. */
  @Field(() => Int, {
    nullable: true,
    description: "Upstream requests per window of its keys' budgets it may start, 1 or more.",
  })
  budgetShare?: number | null;
}

/** A token just created. */
@ObjectType({ description: 'An access token just created: the token, shown this once, and its summary.' })
export class CreatedAccessToken {
  /** The token. */
  @Field(() => String, { description: 'The token (svg_...), shown this once: the vault keeps only its HMAC.' })
  token!: string;

  /** Its summary. */
  @Field(() => AccessTokenSummary, { description: 'The token as accessTokens lists it.' })
  summary!: AccessTokenSummary;
}

/** A character's budget. */
@ObjectType({
  description: "A vault character's upstream budget as this replica sees it now. Read without any upstream request.",
})
export class KeyBudget {
  /** The character. */
  @Field(() => String, { description: "The vault character's name." })
  character!: string;

  /** Limit per window. */
  @Field(() => Int, {
    description: 'Upstream requests allowed per window (UPSTREAM_RATE_LIMIT; 0 when the limit is off).',
  })
  limit!: number;

  /** Window. */
  @Field(() => Int, { description: 'The window, seconds (0 when the limit is off).' })
  windowSeconds!: number;

  /** Used in the window. */
  @Field(() => Int, { description: 'Upstream requests sent in the current window.' })
  usedInWindow!: number;

  /** 429s. */
  @Field(() => Int, { description: 'Upstream 429 answers since the gateway started.' })
  upstream429s!: number;

  /** Waiting. */
  @Field(() => Int, { description: 'Upstream reads waiting for budget (background fills, refreshes, polls).' })
  queued!: number;

  /** The last hour. */
  @Field(() => [BudgetSample], {
    description:
      'The last hour on this replica, one sample a minute, oldest first (kept in memory: empty after a restart). No upstream request.',
  })
  history!: BudgetSample[];
}

/** A delivery's state. */
export enum DeliveryStatus {
  PENDING = 'PENDING',
  DELIVERED = 'DELIVERED',
  FAILED = 'FAILED',
}

registerEnumType(DeliveryStatus, {
  name: 'DeliveryStatus',
  description: 'Where a delivery stands.',
  valuesConfig: {
    [DeliveryStatus.PENDING]: { description: 'Waiting for its next attempt (retried for 24 h).' },
    [DeliveryStatus.DELIVERED]: { description: 'The target answered 2xx.' },
    [DeliveryStatus.FAILED]: { description: 'Given up.' },
  },
});

/** One delivery. */
@ObjectType({
  description: 'A delivery of a webhook (payments) or alert event. Read from the outbox without any upstream request.',
})
export class Delivery {
  /** Its id. */
  @Field(() => ID, { description: "The delivery's id (the message id, webhook-id, the same for every attempt)." })
  id!: string;

  /** What it delivers for. */
  @Field(() => String, { description: 'alert:<id>, webhook:<id> (payments) or similar.' })
  source!: string;

  /** The URL, secret parts elided. */
  @Field(() => String, {
    description: "The target URL, secret parts (userinfo, query, a Discord webhook's token) replaced by an ellipsis.",
  })
  url!: string;

  /** Its status. */
  @Field(() => DeliveryStatus, { description: 'Where it stands.' })
  status!: DeliveryStatus;

  /** Attempts made. */
  @Field(() => Int, { description: 'Attempts made so far.' })
  attempts!: number;

  /** The last HTTP status. */
  @Field(() => Int, {
    nullable: true,
    description: 'The HTTP status of the last attempt, or null (none yet, or not kept).',
  })
  lastStatusCode!: number | null;

  /** When it is tried next. */
  @Field(() => Date, { nullable: true, description: 'When the next attempt is due, or null.' })
  nextAttemptAt!: Date | null;

  /** When it was enqueued. */
  @Field(() => Date, { description: 'When it was enqueued.' })
  createdAt!: Date;
}

/** One audit entry. */
@ObjectType({ description: 'An administrative action. Never a key, secret or token.' })
export class AuditEntry {
  /** When. */
  @Field(() => Date, { description: 'When it was done.' })
  at!: Date;

  /** Who. */
  @Field(() => String, { description: 'session:<id> or token:<id> (or cli for the command line).' })
  actor!: string;

  /** What. */
  @Field(() => String, {
    description: 'e.g. addVaultKey, createAccessToken, revokeAccessToken, createAlert, redeliver, signIn.',
  })
  action!: string;

  /** On what. */
  @Field(() => String, {
    nullable: true,
    description: 'What it acted on: a character name, token id, alert id or delivery id.',
  })
  target!: string | null;

  /** How it ended. */
  @Field(() => String, { description: 'done, or refused: and the error code (e.g. "refused: BAD_USER_INPUT").' })
  outcome!: string;
}
