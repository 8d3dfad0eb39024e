/** What the vault's command line shows and asks for: keys and tokens as listed, a token request. */

/** A key as `keys list` shows it: never the key or the secret. */
export interface KeySummary {
  /** The vault entry's id. */
  readonly id: string;
  /** Its name. */
  readonly name: string;
  /** When it was added. */
  readonly addedAt: Date;
  /** True when a secret is stored with it. */
  readonly hasSecret: boolean;
}

/** A token as `tokens list` shows it. */
export interface TokenSummary {
  /** Its id. */
  readonly id: string;
  /** The names of its characters (a removed key shows as its id). */
  readonly characters: readonly string[];
  /** Its grants as written. */
  readonly grants: readonly string[];
  /** When it was created. */
  readonly createdAt: Date;
  /** When it expires. */
  readonly expiresAt: Date;
  /** When it was revoked, or null. */
  readonly revokedAt: Date | null;
  /** The origin it is bound to, or null. */
  readonly origin: string | null;
  /** Its share of its key's budget, or null. */
  readonly budgetShare: number | null;
  /** When a gateway last accepted it (recorded every 10 s and at a gateway's stop), or null. */
  readonly lastUsedAt: Date | null;
  /** What made it when not a person (e.g. `console: site documents`), or null. */
  readonly label: string | null;
  /**
   * Null when its record verifies; else why gateways refuse it: `malformed: …`, not signed
   * (written before records were signed: `vault rotate` signs it) or a MAC that does not verify.
   */
  readonly refused: string | null;
}

/** What `tokens create` asks for. */
export interface TokenRequest {
  /** Names of vault keys, at least one. */
  readonly characters: readonly string[];
  /** Grants (see `GRANT_FORMS`), at least one. */
  readonly grants: readonly string[];
  /** How long it works, ms. */
  readonly expiresInMs: number;
  /** A browser origin (`scheme://host[:port]`) it is bound to. */
  readonly origin?: string | null;
  /** Its share of its key's requests per window, 1 or more (at most the key's own limit, `UPSTREAM_RATE_LIMIT`). */
  readonly budgetShare?: number | null;
  /** What makes it, when not a person (1 to 64 characters; the console's editor tokens). */
  readonly label?: string | null;
}
