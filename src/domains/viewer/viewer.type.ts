import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

/** What kind of credential the caller sent. */
export enum ViewerKind {
  KEY = 'KEY',
  TOKEN = 'TOKEN',
}

registerEnumType(ViewerKind, {
  name: 'ViewerKind',
  description: 'What the caller sent in Authorization: a StateV API key or a gateway access token.',
  valuesConfig: {
    KEY: { description: "A StateV API key sent by the caller (or the server's key in public-site mode)." },
    TOKEN: { description: "A gateway access token (svg_…), whose characters' keys are in the vault." },
  },
});

/** A character whose key the gateway holds in its vault (never the key or the secret). */
@ObjectType({
  description: 'A StateV character whose API key the gateway holds in its vault. Never carries the key or the secret.',
})
export class Character {
  /** The vault entry's id (`key_…`); for a caller's own key, the key's keyed hash. */
  @Field(() => ID, {
    description: "The vault entry's id; for a StateV key sent by the caller, the key's keyed hash (never the key).",
  })
  id!: string;

  /** The name given to `keys add`. */
  @Field(() => String, {
    description: 'The name given when the key was added to the vault ("API key" for a key sent by the caller).',
  })
  name!: string;
}

/** Who is calling, and what they may do. */
@ObjectType({ description: 'Who is calling, and what they may do. Answered without any upstream request.' })
export class Viewer {
  /** KEY or TOKEN. */
  @Field(() => ViewerKind, {
    description: 'KEY for a StateV API key sent by the caller, TOKEN for a gateway access token.',
  })
  kind!: ViewerKind;

  /** The token's id, or null for a key. */
  @Field(() => ID, { nullable: true, description: "The token's id (never the token itself); null for a key." })
  tokenId!: string | null;

  /** When the token stops working, or null. */
  @Field(() => Date, { nullable: true, description: 'When the token stops working; null for a key.' })
  expiresAt!: Date | null;

  /** The characters whose data this caller reads. */
  @Field(() => [Character], {
    description:
      "The characters whose data this caller reads: the vault entries a token covers, or the caller's own key (none without a key).",
  })
  characters!: Character[];

  /** The token's grants as written, or empty. */
  @Field(() => [String], {
    description:
      'The token\'s grants as written when it was created (e.g. "read", "factory:<id>", "write:siteDocument:catalogue"); empty for a key.',
  })
  grants!: string[];
}
