/**
 * The redactor finds a key however the upstream spreads or encodes it: hexadecimal in
 * either case, and its characters (or those of any other form) separated by spaces or
 * punctuation; and it leaves texts without the key alone. Properties over random keys,
 * separators and surrounding texts (fast-check).
 */
import fc from 'fast-check';
import { REDACTED, Redactor, redactorFor } from '../../src/upstream/redact';

/** Keys as issued: letters, digits, `-` and `_`, 8 to 40 characters, at least 8 of them letters or digits. */
const keys = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).filter((key) => key.replace(/[_-]/g, '').length >= 8);
/** What may stand between the spread characters. */
const separators = fc.constantFrom(' ', '-', '.', ',', ', ', ' - ', ':', '_', '/', '|', ';', '  ', '\t', ' . ');
/** Text around the echoed key (no letters or digits, so it cannot extend the key). */
const around = fc.stringMatching(/^[ !?#%&@]{0,12}$/);

function spread(text: string, separator: string): string {
  return [...text].join(separator);
}

describe('Redactor', () => {
  it('redacts a key spread out by any separator, in either case', () => {
    fc.assert(
      fc.property(keys, separators, around, around, fc.boolean(), (key, separator, before, after, upper) => {
        const echoed = spread(upper ? key.toUpperCase() : key, separator);
        const redactor = new Redactor([key]);
        const out = redactor.redact(`invalid token ${before}${echoed}${after} given`) ?? '';
        expect(out).not.toContain(echoed);
        expect(out).toContain(REDACTED);
        expect(out.startsWith('invalid token ')).toBe(true);
      }),
    );
  });

  it('redacts the hex of a key in either case, whole, spread out, or a piece of 8 characters', () => {
    fc.assert(
      fc.property(keys, separators, fc.boolean(), fc.nat(), (key, separator, upper, at) => {
        const hex = Buffer.from(key, 'utf8').toString('hex');
        const cased = upper ? hex.toUpperCase() : hex;
        const start = at % (cased.length - 8);
        const piece = cased.slice(start, start + 8);
        const pairs = (cased.match(/../g) ?? []).join(separator);
        const redactor = new Redactor([key]);
        for (const form of [cased, pairs, piece]) {
          const out = redactor.redact(`echo: ${form}!`) ?? '';
          expect(out).not.toContain(form);
          expect(out).toBe(`echo: ${REDACTED}!`);
        }
      }),
    );
  });

  it('withholds texts that hold a key with fewer than 8 characters besides separators', () => {
    expect(new Redactor(['_aaaaaaA']).redact('token _ a a a a a a A')).toBeNull();
    expect(new Redactor(['sim-key-1']).redact('key s i m k e y 1 unknown')).toBeNull();
  });

  it('lets the other texts of such a key through (an empty store is still read as empty)', () => {
    expect(new Redactor(['sim-key-1']).redact('Inventory is empty')).toBe('Inventory is empty');
  });

  it('keeps the text around the spread key', () => {
    const redactor = new Redactor(['demo-premium-key']);
    expect(redactor.redact('key "d e m o - p r e m i u m - k e y" is unknown')).toBe(`key "${REDACTED}" is unknown`);
    expect(redactor.redact('key 64656d6f2d7072656d69756d2d6b6579 is unknown')).toBe(`key ${REDACTED} is unknown`);
    expect(redactor.redact('key 64656D6F2D7072656D69756D2D6B6579 is unknown')).toBe(`key ${REDACTED} is unknown`);
    expect(redactor.redact('key d.e.m.o.-.p.r.e.m.i.u.m is unknown')).toBe(`key ${REDACTED} is unknown`);
  });

  it('leaves texts alone that do not hold 8 characters of the key, separators or not', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-f0-9]{24,32}$/), fc.string({ maxLength: 80 }), (key, text) => {
        // Keys of hex digits only, texts that hold no hex digit: nothing to find.
        const clean = text.replace(/[a-fA-F0-9]/g, 'x');
        expect(new Redactor([key]).redact(clean)).toBe(clean);
      }),
    );
    const redactor = new Redactor(['Hostile-Key-0123456789abcdef']);
    expect(redactor.redact('Missing scope: factory.counter, see /factory/counter/{id}')).toBe(
      'Missing scope: factory.counter, see /factory/counter/{id}',
    );
  });

  it('scans a long text that holds no key without copying or lower-casing it', () => {
    const redactor = new Redactor(['Hostile-Key-0123456789abcdef', 'a-long-enough-secret']);
    const text = `This access token may not read company "${'v'.repeat(60_000)}…".`;
    const slice = jest.spyOn(String.prototype, 'slice');
    const lower = jest.spyOn(String.prototype, 'toLowerCase');
    const charAt = jest.spyOn(String.prototype, 'charAt');
    try {
      expect(redactor.redact(text)).toBe(text);
      expect(slice).not.toHaveBeenCalled();
      // Only the character outside ASCII is lower-cased, on its own.
      expect(lower.mock.contexts.every((context) => String(context).length === 1)).toBe(true);
      expect(charAt).not.toHaveBeenCalled();
    } finally {
      slice.mockRestore();
      lower.mockRestore();
      charAt.mockRestore();
    }
  });

  it('finds in place exactly what it finds through lower-cased copies', () => {
    // Pieces of the key's forms, separators and other characters (some outside ASCII: `…`,
    // a no-break space, the Kelvin sign that lower-cases to `k`) in any order: the in-place
    // scan must replace the same spans as the general path (a trailing `Σ` sends the text
    // there and cannot be part of any form of these keys).
    const forms = (key: string): string[] => [
      key,
      key.toUpperCase(),
      Buffer.from(key).toString('hex'),
      Buffer.from(`Bearer ${key}`).toString('base64'),
      encodeURIComponent(key),
      [...key].reverse().join(''),
    ];
    fc.assert(
      fc.property(
        keys,
        fc.array(
          fc.tuple(fc.nat(), fc.nat(), fc.nat(), separators, fc.stringMatching(/^[ -~\u2026\u00a0\u212a\u00e9]{0,6}$/)),
          {
            maxLength: 6,
          },
        ),
        (key, parts) => {
          const all = forms(key);
          const text = parts
            .map(([which, from, length, separator, noise]) => {
              const form = all[which % all.length] ?? key;
              const start = from % form.length;
              const piece = form.slice(start, start + 4 + (length % 12));
              return (length % 3 === 0 ? spread(piece, separator) : piece) + noise;
            })
            .join('');
          const redactor = new Redactor([key]);
          expect(redactor.redact(text)).toBe((redactor.redact(`${text}Σ`) ?? '').replace(/Σ$/, ''));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('redactorFor', () => {
  it('builds one Redactor per set of secrets, reused for every result that set redacts', () => {
    const secrets = ['demo-premium-key', 'a-long-enough-secret'];
    const redactor = redactorFor(secrets);
    expect(redactorFor([...secrets])).toBe(redactor);
    expect(redactorFor(['demo-premium-key'])).not.toBe(redactor);
    expect(redactorFor(['demo-premium-key', 'a-long-enough-secreT'])).not.toBe(redactor);
    expect(redactor.redact('key demo-premium-key echoed')).toBe(
      new Redactor(secrets).redact('key demo-premium-key echoed'),
    );
    expect(redactor.redact('key demo-premium-key echoed')).toContain(REDACTED);
  });
});
