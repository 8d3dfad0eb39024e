/**
 * The administration graph's types for the console's site-documents page: what
 * `siteDocumentEditor` takes and the short-lived access token it answers with.
 */
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

/** What `siteDocumentEditor` takes. */
@InputType({
  description:
    "The company whose site documents the console edits, and the document to write (none: a token that only reads the company's documents).",
})
export class SiteDocumentEditorInput {
  /** A vault character's name. */
  @Field(() => String, {
    description: "A vault character's name (as vaultCharacters lists it) whose key serves the company.",
  })
  character!: string;

  /** The company. */
  @Field(() => ID, {
    description:
      "The company, one the character owns as addVaultKey's key check found it (vaultCharacters.companies); else BAD_USER_INPUT.",
  })
  factoryId!: string;

  /** The document the token may write, or none. */
  @Field(() => String, {
    nullable: true,
    description:
      "The site document the token may write and delete (1 to 32 characters: a-z, 0-9, '-', '_' and '.'); null: a token that only reads the company's documents, their list and capacity.",
  })
  name?: string | null;
}

/** A short-lived token for the public graph, minted for the console's site-documents page. */
@ObjectType({
  description:
    'A short-lived access token for the public graph (/graphql), made for the console\'s site-documents page: the console reads and writes site documents there, where they spend the character key\'s upstream budget, so that the administration graph itself never does. Listed by accessTokens with the label "console: site documents"; expired ones leave the vault at the next siteDocumentEditor.',
})
export class EditorToken {
  /** The token, once. */
  @Field(() => String, {
    description:
      "The token (svg_…), in this answer only: send it as Authorization: Bearer to /graphql from the gateway's own origin. The console keeps it in the page's memory only.",
  })
  token!: string;

  /** Its id. */
  @Field(() => ID, { description: "The token's id (tok_…), as accessTokens and the audit log name it." })
  id!: string;

  /** Its grants. */
  @Field(() => [String], {
    description:
      'Its grants: factory:<id> (that company only) and, when a document was named, write:siteDocument:<name>; nothing else.',
  })
  grants!: string[];

  /** When it expires. */
  @Field(() => Date, { description: 'When it stops working: 15 minutes after it was made.' })
  expiresAt!: Date;

  /** The origin it is bound to. */
  @Field(() => String, {
    description: "The browser origin it is bound to: the gateway's own (PUBLIC_URL's, or http:// and the Host).",
  })
  origin!: string;

  /** Its budget share. */
  @Field(() => Int, {
    nullable: true,
    description:
      "Upstream requests per window of the key's budget it may start: the key's own limit (UPSTREAM_RATE_LIMIT's N), so that a large document's paced writes are never cut off part-way; null when that limit is off.",
  })
  budgetShare!: number | null;
}
