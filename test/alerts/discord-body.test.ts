/**
 * The Discord body of an alert: one embed within Discord's limits whatever the length of the
 * names in the data, in the words of the data (company, item, amounts, a link to the
 * console), and `allowed_mentions: {"parse": []}` so that a company or item named
 * `@everyone` pings no one.
 */
import fc from 'fast-check';
import type { AlertFacts } from '../../src/alerts/alert-event';
import { DISCORD_LIMITS, cut, discordBody } from '../../src/alerts/discord-body';
import type { DiscordBody } from '../../src/alerts/discord-body';
import { anEvent } from './alert-helpers';

/** Every text of the embed that counts towards Discord's 6,000. */
function embedTotal(body: DiscordBody): number {
  const [embed] = body.embeds;
  if (!embed) return 0;
  return (
    embed.title.length +
    embed.description.length +
    embed.footer.text.length +
    embed.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
}

function withinLimits(body: DiscordBody): void {
  expect(body.embeds).toHaveLength(1);
  const [embed] = body.embeds;
  if (!embed) throw new Error('no embed');
  expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
  expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
  expect(embed.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
  for (const field of embed.fields) {
    expect(field.name.length).toBeGreaterThan(0);
    expect(field.name.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldName);
    expect(field.value.length).toBeGreaterThan(0);
    expect(field.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
  }
  expect(embed.footer.text.length).toBeLessThanOrEqual(DISCORD_LIMITS.footer);
  expect(embedTotal(body)).toBeLessThanOrEqual(DISCORD_LIMITS.total);
  expect(body.allowed_mentions).toEqual({ parse: [] });
  expect(body).not.toHaveProperty('content');
}

describe('the Discord body of an alert', () => {
  it('says what happened in the words of the data, with a link to the console', () => {
    const body = discordBody(anEvent('evt-1'), 'https://gateway.example/console/');
    withinLimits(body);
    const [embed] = body.embeds;
    expect(embed?.title).toBe('Low stock: Water');
    expect(embed?.description).toBe('Kiosk Nord has 3 Water left in its store, below 10.');
    expect(embed?.url).toBe('https://gateway.example/console/');
    expect(embed?.fields.map((field) => [field.name, field.value])).toEqual([
      ['Company', 'Kiosk Nord'],
      ['Item', 'Water'],
      ['Amount', '3'],
      ['Threshold', '10'],
    ]);
    const transfer = discordBody(
      anEvent('evt-2', {
        kind: 'TRANSACTION_ADDED',
        bankAccountId: 'b1',
        factoryName: 'Kiosk Nord',
        amount: 1250.5,
        sender: '4799001',
        receiver: '4711002',
        reference: 'order 7',
        at: null,
      } as Partial<AlertFacts>),
      null,
    );
    expect(transfer.embeds[0]?.title).toBe('Transfer of $1,250.5');
    expect(transfer.embeds[0]).not.toHaveProperty('url');
  });

  it('pings no one when a company or an item is named @everyone or @here', () => {
    const body = discordBody(anEvent('evt-1', { factoryName: '@everyone', item: '@here <@&123> <@456>' }), null);
    withinLimits(body);
    expect(JSON.stringify(body)).toContain('@everyone');
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it('stays within every limit whatever the names, for every kind', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 9000 });
    const facts = fc.oneof(
      fc.record({
        kind: fc.constant('STOCK_BELOW' as const),
        factoryId: text,
        factoryName: fc.option(text),
        store: fc.constantFrom('STORE' as const, 'MACHINE' as const, 'COUNTER' as const),
        item: text,
        amount: fc.integer(),
        threshold: fc.integer(),
      }),
      fc.record({
        kind: fc.constant('TRANSACTION_ADDED' as const),
        bankAccountId: text,
        factoryName: fc.option(text),
        amount: fc.double({ noNaN: true }),
        sender: fc.option(text),
        receiver: fc.option(text),
        reference: fc.option(text),
        at: fc.option(text),
      }),
      fc.record({
        kind: fc.constant('OUTBID' as const),
        auctionId: text,
        auctionType: fc.constantFrom('IMPORT' as const, 'EXPORT' as const, null),
        item: fc.option(text),
        currentBid: fc.option(fc.integer()),
        endsAt: fc.option(text),
      }),
      fc.record({
        kind: fc.constant('RENT_OVERDUE' as const),
        buildingId: text,
        buildingName: fc.option(text),
        tenant: text,
        lastPayDate: text,
        days: fc.integer(),
      }),
    );
    fc.assert(
      fc.property(facts, text, text, (each, character, ruleId) => {
        withinLimits(
          discordBody(
            { ...anEvent('evt'), character, ruleId, facts: each as AlertFacts },
            'https://gateway.example/console/',
          ),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('cuts on a character boundary, never half an emoji', () => {
    expect(cut('ab😀cd', 4)).toBe('ab…');
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('😀😀😀', 5)).toBe('😀😀…');
  });
});
