/**
 * A realistic company-website catalogue, the kind community sites keep in their option
 * slots: items with names, categories, prices, descriptions and image URLs. Deterministic
 * for a seed, so tests, the bench and the demo measure the same data.
 */

/** One catalogue item. */
export interface CatalogueItem {
  /** Stable id, e.g. `item-0001`. */
  id: string;
  /** Display name. */
  name: string;
  /** Category, e.g. `Getränke`. */
  category: string;
  /** Price in dollars (two decimals). */
  price: number;
  /** What one price buys, e.g. `Flasche`. */
  unit: string;
  /** A line of text for the website. */
  description: string;
  /** Image URL. */
  image: string;
  /** Whether the shop sells it now. */
  available: boolean;
}

/** A site's catalogue document: shop texts, opening hours and items. */
export interface Catalogue {
  /** The shop's texts. */
  shop: { name: string; slogan: string; phone: string; address: string };
  /** Opening hours, one entry per run of days. */
  openingHours: Array<{ days: string; from: string; to: string }>;
  /** Currency of the prices, e.g. `USD`. */
  currency: string;
  /** The items. */
  items: CatalogueItem[];
}

const NOUNS = [
  'Sandwich',
  'Kaffee',
  'Wasser',
  'Burger',
  'Pizza',
  'Salat',
  'Limonade',
  'Donut',
  'Brezel',
  'Energy Drink',
  'Schokolade',
  'Chips',
  'Tee',
  'Bagel',
  'Wrap',
  'Suppe',
  'Muffin',
  'Croissant',
  'Saft',
  'Eis',
];
const ADJECTIVES = [
  'frisch',
  'hausgemacht',
  'klassisch',
  'scharf',
  'vegan',
  'groß',
  'klein',
  'gekühlt',
  'warm',
  'knusprig',
  'süß',
  'herzhaft',
];
const CATEGORIES = ['Getränke', 'Snacks', 'Warme Speisen', 'Backwaren', 'Süßes', 'Frühstück'];
const UNITS = ['Stück', 'Flasche', 'Becher', 'Portion', 'Packung'];
const WORDS = [
  'mit',
  'aus',
  'regionalen',
  'Zutaten',
  'täglich',
  'frisch',
  'zubereitet',
  'ideal',
  'für',
  'unterwegs',
  'nach',
  'altem',
  'Familienrezept',
  'ohne',
  'Zusatzstoffe',
  'perfekt',
  'zum',
  'Frühstück',
  'oder',
  'als',
  'Snack',
  'zwischendurch',
  'solange',
  'der',
  'Vorrat',
  'reicht',
  'auch',
  'zum',
  'Mitnehmen',
  'beliebt',
  'bei',
  'Stammkunden',
];

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)] as T;
}

/**
 * A catalogue of `items` items (200 make about 40 KB of canonical JSON).
 *
 * @param items - number of items (default 200)
 * @param seed - the PRNG seed (default 1)
 */
export function realisticCatalogue(items = 200, seed = 1): Catalogue {
  const next = random(seed);
  return {
    shop: {
      name: '24/7 Supermarkt Vinewood',
      slogan: 'Rund um die Uhr für Sie da – frische Ware, faire Preise.',
      phone: '555-0147',
      address: 'Vinewood Blvd 12, Los Santos',
    },
    openingHours: [
      { days: 'Mo–Fr', from: '00:00', to: '24:00' },
      { days: 'Sa–So', from: '08:00', to: '22:00' },
    ],
    currency: 'USD',
    items: Array.from({ length: items }, (_, i) => {
      const noun = pick(next, NOUNS);
      const adjective = pick(next, ADJECTIVES);
      const slug = `${adjective}-${noun}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const words = Array.from({ length: 2 + Math.floor(next() * 5) }, () => pick(next, WORDS)).join(' ');
      return {
        id: `item-${String(i + 1).padStart(4, '0')}`,
        name: `${noun} ${adjective}`,
        category: pick(next, CATEGORIES),
        price: Math.round((1 + next() * 60) * 100) / 100,
        unit: pick(next, UNITS),
        description: `${words}.`,
        image: `https://cdn.example/img/${slug}-${(i * 7919) % 100000}.webp`,
        available: next() > 0.15,
      };
    }),
  };
}

/**
 * The demo shop's own catalogue (the 24/7 shop of the fixtures): texts, opening hours and
 * the items its counter sells, with descriptions and images; its website shows these next
 * to the live counter prices (`examples/company-site/`).
 */
export function shopCatalogue(): Catalogue {
  const item = (
    id: string,
    name: string,
    category: string,
    price: number,
    unit: string,
    description: string,
  ): CatalogueItem => ({
    id,
    name,
    category,
    price,
    unit,
    description,
    image: `https://cdn.example/img/${id}.webp`,
    available: true,
  });
  return {
    shop: {
      name: 'Kiosk am Hafen',
      slogan: 'Rund um die Uhr geöffnet – frischer Kaffee, kalte Getränke, alles für unterwegs.',
      phone: '555-0147',
      address: 'Hafenstraße 1, Los Santos',
    },
    openingHours: [{ days: 'Mo–So', from: '00:00', to: '24:00' }],
    currency: 'USD',
    items: [
      item('wasser', 'Wasser', 'Getränke', 4.5, 'Flasche', 'Stilles Mineralwasser, 0,5 l, gekühlt.'),
      item('sandwich', 'Sandwich', 'Snacks', 7, 'Stück', 'Täglich frisch belegt: Käse, Schinken oder vegetarisch.'),
      item('kaffee', 'Kaffee', 'Getränke', 3.5, 'Becher', 'Frisch gemahlen, auch zum Mitnehmen.'),
      item('zigaretten', 'Zigaretten', 'Tabak', 12, 'Packung', 'Nur ab 18 Jahren.'),
      item(
        'verbandskasten',
        'Verbandskasten',
        'Erste Hilfe',
        45,
        'Stück',
        'Nach DIN 13164, Pflicht in jedem Fahrzeug.',
      ),
      item('pappbecher', 'Pappbecher', 'Zubehör', 0.2, 'Stück', 'Für Kaffee zum Mitnehmen, 0,3 l.'),
    ],
  };
}
