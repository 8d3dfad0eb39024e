/**
 * The body of a Discord webhook message for an alert: one embed in the words of the data
 * (the company, the item, the amounts, a link to the console), within Discord's limits
 * (title 256 characters, description 4,096, at most 25 fields of name 256 and value 1,024,
 * footer 2,048, all the embed's texts together 6,000), and `allowed_mentions: {"parse": []}`
 * so that a company or item named `@everyone` pings no one. Texts are cut on a character
 * boundary with an ellipsis; lengths count UTF-16 units, never fewer than Discord's characters.
 */
import type { AlertEvent, AlertFacts } from './alert-event';

/** Discord's limits of one embed (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
export const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
  content: 2000,
} as const;

/** One field of an embed. */
interface EmbedField {
  readonly name: string;
  readonly value: string;
  readonly inline: boolean;
}

/** The Discord webhook body this module builds. */
export interface DiscordBody {
  /** Always one embed. */
  readonly embeds: ReadonlyArray<{
    readonly title: string;
    readonly description: string;
    readonly url?: string;
    readonly color: number;
    readonly timestamp: string;
    readonly fields: readonly EmbedField[];
    readonly footer: { readonly text: string };
  }>;
  /** No mention is parsed from the texts. */
  readonly allowed_mentions: { readonly parse: readonly never[] };
}

/** `text` cut to at most `max` UTF-16 units, an ellipsis in place of what was cut (never half a surrogate pair). */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, Math.max(0, end))}…`;
}

const DOLLARS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** An amount of the game's dollars, e.g. `$1,250.5`. */
function dollars(amount: number | null): string {
  return amount === null ? 'unknown' : `${amount < 0 ? '-' : ''}$${DOLLARS.format(Math.abs(amount))}`;
}

const STORES: Readonly<Record<string, string>> = { STORE: 'store', MACHINE: 'machine', COUNTER: 'counter' };

/** The title, description, colour and fields of one event's facts. */
function describe(facts: AlertFacts): {
  title: string;
  description: string;
  color: number;
  fields: Array<[string, string]>;
} {
  switch (facts.kind) {
    case 'STOCK_BELOW': {
      const company = facts.factoryName ?? `company ${facts.factoryId}`;
      return {
        title: `Low stock: ${facts.item}`,
        description: `${company} has ${facts.amount} ${facts.item} left in its ${STORES[facts.store] ?? facts.store}, below ${facts.threshold}.`,
        color: 0xe67e22,
        fields: [
          ['Company', company],
          ['Item', facts.item],
          ['Amount', String(facts.amount)],
          ['Threshold', String(facts.threshold)],
        ],
      };
    }
    case 'TRANSACTION_ADDED':
      return {
        title: `Transfer of ${dollars(facts.amount)}`,
        description: `${dollars(facts.amount)} ${facts.amount < 0 ? 'left' : 'reached'} ${facts.factoryName ?? `bank account ${facts.bankAccountId}`}${facts.reference ? ` with the reference "${facts.reference}"` : ''}.`,
        color: 0x2ecc71,
        fields: [
          ['Amount', dollars(facts.amount)],
          ['From', facts.sender ?? 'unknown'],
          ['To', facts.receiver ?? 'unknown'],
          ['Reference', facts.reference ?? 'none'],
          ['Account', facts.bankAccountId],
          ...(facts.at ? ([['Booked', facts.at]] as Array<[string, string]>) : []),
        ],
      };
    case 'OUTBID':
      return {
        title: `Outbid: ${facts.item ?? `auction ${facts.auctionId}`}`,
        description: `Someone bid more on ${facts.auctionType ? `${facts.auctionType.toLowerCase()} ` : ''}auction ${facts.auctionId}${facts.item ? ` (${facts.item})` : ''}: the highest bid is now ${dollars(facts.currentBid)}.`,
        color: 0xe74c3c,
        fields: [
          ['Auction', facts.auctionId],
          ['Item', facts.item ?? 'unknown'],
          ['Highest bid', dollars(facts.currentBid)],
          ['Ends', facts.endsAt ?? 'unknown'],
        ],
      };
    case 'RENT_OVERDUE': {
      const building = facts.buildingName ?? `building ${facts.buildingId}`;
      return {
        title: `Rent overdue: ${facts.tenant}`,
        description: `${facts.tenant} in ${building} last paid rent on ${facts.lastPayDate}, ${facts.days} days ago.`,
        color: 0x9b59b6,
        fields: [
          ['Building', building],
          ['Tenant', facts.tenant],
          ['Last paid', facts.lastPayDate],
          ['Days', String(facts.days)],
        ],
      };
    }
  }
}

/**
 * The Discord webhook body of an event (see the module comment).
 *
 * @param consoleUrl - the console's address (`PUBLIC_URL` + `/console/`), linked from the title; null for none
 */
export function discordBody(event: AlertEvent, consoleUrl: string | null): DiscordBody {
  const { title, description, color, fields } = describe(event.facts);
  const footer = cut(`StateV gateway · ${event.character} · rule ${event.ruleId}`, DISCORD_LIMITS.footer);
  let budget = DISCORD_LIMITS.total - footer.length;
  const fit = (text: string, max: number): string => {
    const fitted = cut(text, Math.min(max, budget));
    budget -= fitted.length;
    return fitted;
  };
  const embedTitle = fit(title, DISCORD_LIMITS.title);
  // The fields before the description: a long name cuts the prose, never the numbers.
  const embedFields: EmbedField[] = [];
  for (const [name, value] of fields.slice(0, DISCORD_LIMITS.fields)) {
    // Keep 200 for the description; the names are this module's own short words.
    if (budget < name.length + 1 + 200) break;
    const fieldName = fit(name, DISCORD_LIMITS.fieldName);
    embedFields.push({
      name: fieldName,
      value: fit(value === '' ? '-' : value, Math.min(DISCORD_LIMITS.fieldValue, budget - 200)),
      inline: true,
    });
  }
  const embedDescription = fit(description, DISCORD_LIMITS.description);
  return {
    embeds: [
      {
        title: embedTitle,
        description: embedDescription,
        ...(consoleUrl ? { url: consoleUrl } : {}),
        color,
        timestamp: event.detectedAt,
        fields: embedFields,
        footer: { text: footer },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}
