/**
 * `title` (at most 64) and `data` (at most 2400) are counted as the upstream counts them:
 * class-validator's `@MaxLength` (validator.js `isLength`) counts a surrogate pair once,
 * does not count the variation selectors U+FE0E/U+FE0F, and counts each combining mark.
 * So 64 emoji are a valid title (128 UTF-16 code units), 65 are not, and 33 letters with a
 * combining accent each are 66 characters, too long.
 */
import { characterLength } from '../../src/field-rules/character-length';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { UpdateFactoryOptionDocument } from '../generated/graphql';
import type { UpdateFactoryOptionInput } from '../generated/graphql';
import { useStack } from '../support';
import type { Stack } from '../support';

const EMOJI = '\u{1F96A}'; // 🥪, a surrogate pair
const HEART = '\u2764\uFE0F'; // ❤️, a BMP symbol with an emoji presentation selector
const E_ACUTE = 'e\u0301'; // é as e + combining acute accent: two characters

describe('characterLength counts as class-validator does', () => {
  it.each([
    ['ASCII', 'abc', 3],
    ['an emoji outside the BMP', EMOJI, 1],
    ['a symbol with a presentation selector', HEART, 1],
    ['a letter with a combining mark', E_ACUTE, 2],
    ['a flag (two regional indicators)', '\u{1F1E9}\u{1F1EA}', 2],
    ['a lone surrogate', '\uD83E', 1],
  ])('%s', (_name, text, length) => {
    expect(characterLength(text)).toBe(length);
  });
});

describe('title and data bounds with emoji and combining marks', () => {
  const stack = useStack({}, { resetSimulator: true });

  const write = (title: string, data: string): ReturnType<Stack['execute']> => {
    const input: UpdateFactoryOptionInput = {
      factoryId: FIXTURE_IDS.shop,
      slot: 2,
      title,
      data,
      apiSecret: DEMO_KEYS.premium.secret,
    };
    return stack.execute(UpdateFactoryOptionDocument, { input }, { key: DEMO_KEYS.premium.key });
  };

  it('accepts 64 emoji as a title and 2400 emoji as data, and the upstream takes them', async () => {
    const result = await write(EMOJI.repeat(64), EMOJI.repeat(1200) + HEART.repeat(1200));
    expect(result.errors).toBeUndefined();
    expect(stack.simulator.requests.some((request) => request.method === 'PUT' || request.method === 'POST')).toBe(
      true,
    );
  });

  it('accepts 33 emoji (66 UTF-16 code units) as a title', async () => {
    const result = await write(EMOJI.repeat(33), 'ok');
    expect(result.errors).toBeUndefined();
  });

  it.each([
    ['65 emoji as a title', EMOJI.repeat(65), 'ok', 'input.title', 65],
    ['33 letters with combining accents (66 characters) as a title', E_ACUTE.repeat(33), 'ok', 'input.title', 66],
    ['2401 emoji as data', 'ok', EMOJI.repeat(2401), 'input.data', 2401],
  ])('refuses %s with BAD_USER_INPUT, before any upstream request', async (_name, title, data, argument, length) => {
    const result = await write(title, data);
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors?.[0]?.extensions?.argument).toBe(argument);
    expect(result.errors?.[0]?.message).toContain(`got ${length}`);
    expect(stack.simulator.requests).toHaveLength(0);
  });
});
