import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ENDPOINTS, describeSource } from '../../upstream/endpoints';

/** Rules of a document name, as descriptions and errors state them. */
export const NAME_RULE = "1 to 32 characters: a-z, 0-9, '-', '_' and '.'";

/** The `JSON` scalar (graphql-scalars): any RFC 8259 value. */
export const JSONScalar = GraphQLJSON;

/** A document as listed, without its value. */
@ObjectType({
  description:
    'A site document as listed by Factory.siteDocuments (and the fields every SiteDocument has): its manifest only, the value is not read.',
})
export class SiteDocumentInfo {
  @Field(() => String, { description: `The document's name, ${NAME_RULE}.` })
  name!: string;

  @Field(() => Int, { description: 'Starts at 1; each successful setSiteDocument adds 1.' })
  version!: number;

  @Field(() => Date, { nullable: true, description: 'When this version was written.' })
  updatedAt!: Date | null;

  @Field(() => Int, { description: 'UTF-8 bytes of the canonical JSON text, before compression.' })
  bytes!: number;

  @Field(() => [Int], {
    description: 'Option slots the document occupies: the committing slot first, then the chunks.',
  })
  slots!: number[];
}

/** A site document as read (or as a write will make it). */
@ObjectType({
  description: `A named JSON document a company website keeps in the company's option slots (written by setSiteDocument): chunks compressed into slots, committed by one manifest slot, checked by SHA-256 on every read. ${describeSource(ENDPOINTS.factoryOption)} See docs/site-documents.md.`,
})
export class SiteDocument extends SiteDocumentInfo {
  @Field(() => String, { description: 'Lower-case hex SHA-256 of the canonical JSON text; verified on every read.' })
  sha256!: string;

  @Field(() => String, {
    description:
      'How the chunks are compressed and encoded, e.g. deflate-base64url (SITE_DOCUMENT_ENCODING at the time of the write).',
  })
  encoding!: string;

  @Field(() => Int, { description: 'The committing slot: it holds the manifest and is written last.' })
  manifestSlot!: number;

  /** Company id, to read the value lazily. */
  factoryId!: string;
}

/** Which slots a new document could take. */
@ObjectType({
  description:
    "How much room the company's option slots have for site documents. Reads every slot (OPTION_SLOTS, through the cache).",
})
export class SiteDocumentCapacity {
  @Field(() => [Int], {
    description:
      'Option slots that hold neither a site document nor data written by something else: never set, cleared ("." or empty title and data), or a chunk no document lists any more (a replaced version\'s chunk is free from the commit that replaced it; it keeps its data until a write reuses it, which takes never-set and cleared slots first).',
  })
  freeSlots!: number[];

  @Field(() => [Int], {
    description:
      'Slots written by something else (by hand, updateFactoryOption, another tool); the gateway never overwrites them.',
  })
  foreignSlots!: number[];

  @Field(() => [Int], { description: 'Slots site documents occupy now.' })
  documentSlots!: number[];

  @Field(() => Int, {
    description:
      'Bytes of canonical JSON text that still fit in the free slots for a new document (one free slot commits it), estimated at the bytes per slot measured on a realistic catalogue for the configured encoding: compression varies with the data.',
  })
  estimatedFreeBytes!: number;
}

/** Input of `setSiteDocument`. */
@InputType({
  description: `Input of setSiteDocument. Checked before any upstream request: the name (${NAME_RULE}), the value (JSON of at most SITE_DOCUMENT_MAX_BYTES bytes, canonical) and the secret.`,
})
export class SetSiteDocumentInput {
  @Field(() => ID, {
    description: "The company whose option slots hold the document; must be owned by the key's character.",
  })
  factoryId!: string;

  @Field(() => String, { description: `The document's name, ${NAME_RULE}.` })
  name!: string;

  @Field(() => JSONScalar, {
    description:
      'The JSON value; stored as canonical JSON (object keys sorted, no whitespace), at most SITE_DOCUMENT_MAX_BYTES UTF-8 bytes.',
  })
  value!: unknown;

  @Field(() => Int, {
    nullable: true,
    description:
      'Write only if the stored version is this one (0: only if the document does not exist); omitted: no check. The committing slot is read again, bypassing the cache, before the first chunk is written and just before the commit; on a mismatch: CONFLICT with extensions.currentVersion, and no committing write.',
  })
  expectedVersion?: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT.',
  })
  apiSecret?: string | null;
}

/** Result of `setSiteDocument`. */
@ObjectType({ description: 'Result of setSiteDocument.' })
export class SetSiteDocumentPayload {
  @Field(() => SiteDocument, {
    description: 'The document as written (or, while committed is false, as it will read once the write has finished).',
  })
  document!: SiteDocument;

  @Field(() => Int, {
    description:
      'Upstream option writes (POST /factory/options) this change took so far: one per changed chunk and one for the committing slot (the replaced chunks are freed by the commit, not written); 0 when the value was unchanged.',
  })
  upstreamWrites!: number;

  @Field(() => Int, {
    description:
      "The version this write replaced (0: there was none), as read when the write was planned under the company's write lock: without expectedVersion, the version the later commit wins over. Equals document.version when the value was unchanged.",
  })
  replacedVersion!: number;

  @Field(() => Boolean, {
    description:
      "True when the new version is committed (reads return it). False when the writes did not finish within the request's patience (UPSTREAM_PATIENCE_MS or Prefer: wait=N): they go on in the background.",
  })
  committed!: boolean;

  @Field(() => Int, {
    nullable: true,
    description:
      "While committed is false: seconds after which the write is expected to be committed (the key's budget paces it). Null when committed.",
  })
  retryAfterSeconds!: number | null;
}

/** Input of `deleteSiteDocument`. */
@InputType({ description: "Input of deleteSiteDocument. Checked before any upstream request like setSiteDocument's." })
export class DeleteSiteDocumentInput {
  @Field(() => ID, { description: 'The company whose option slots hold the document.' })
  factoryId!: string;

  @Field(() => String, { description: `The document's name, ${NAME_RULE}.` })
  name!: string;

  @Field(() => Int, {
    nullable: true,
    description:
      'Delete only if the stored version is this one; omitted: no check. CONFLICT on a mismatch, with nothing written.',
  })
  expectedVersion?: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The API secret belonging to the key. When absent, the X-Api-Secret request header is used; without either: BAD_USER_INPUT.',
  })
  apiSecret?: string | null;
}

/** Result of `deleteSiteDocument`. */
@ObjectType({ description: 'Result of deleteSiteDocument.' })
export class DeleteSiteDocumentPayload {
  @Field(() => [Int], {
    description:
      'Slots freed: the committing slot (cleared first, which removes the document at once) and the chunks (cleared after). Empty when there was no such document.',
  })
  freedSlots!: number[];

  @Field(() => Int, { description: 'Upstream option writes (POST /factory/options) the deletion took.' })
  upstreamWrites!: number;

  @Field(() => Int, {
    description:
      "The version the deletion removed (0: there was no such document), as read under the company's write lock.",
  })
  replacedVersion!: number;
}
