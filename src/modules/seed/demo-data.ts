/** The content of the demo shop: what it sells, who buys, what they say. */

/** A small seeded generator, so every demo shop looks alike (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** One of the items, with probability proportional to its weight. */
export function pickWeighted<T>(random: () => number, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let r = random() * total;
  for (const [item, weight] of items) {
    r -= weight;
    if (r < 0) return item;
  }
  return items[items.length - 1]![0];
}

export function serialKeys(random: () => number, prefix: string, count: number): string[] {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const block = () => Array.from({ length: 5 }, () => pick(random, [...alphabet])).join('');
  return Array.from({ length: count }, () => `${prefix}-${block()}-${block()}-${block()}`);
}

/**
 * Product bodies for POST /self/{shopId}/v2/products; `key` names them in the order mix. `files`:
 * the ids of the uploaded e-book and program (demo-files.ts).
 */
export function demoProducts(random: () => number, files: { ebook: string; program: string }) {
  return {
    starfall: {
      title: 'Starfall Odyssey — Steam Key',
      description: 'An open-world space adventure. Redeem the key on Steam; region free.',
      shortDescription: 'Open-world space adventure (Steam)',
      variants: [
        {
          title: 'Standard Edition',
          priceDetails: { amount: 19.99 },
          productType: 'serials',
          asSerials: { serials: serialKeys(random, 'STAR', 260) },
        },
        {
          title: 'Deluxe Edition',
          priceDetails: { amount: 34.99 },
          productType: 'serials',
          asSerials: { serials: serialKeys(random, 'STDX', 90), maxAmount: 3 },
        },
      ],
    },
    pixel: {
      title: 'Pixel Dungeon — Steam Key',
      description: 'A retro roguelike. Redeem the key on Steam.',
      shortDescription: 'Retro roguelike (Steam)',
      variants: [
        {
          title: 'Key',
          priceDetails: { amount: 4.99 },
          productType: 'serials',
          asSerials: { serials: serialKeys(random, 'PIXL', 220) },
        },
      ],
    },
    vpn: {
      title: 'SecureNet VPN — 1 Year',
      description: 'One year of SecureNet VPN on up to five devices. Activate the licence in the app.',
      variants: [
        {
          title: '1 Year',
          priceDetails: { amount: 29.99 },
          productType: 'serials',
          asSerials: { serials: serialKeys(random, 'VPN1', 140) },
          warranty: { text: 'Replaced if it does not activate.', durationSeconds: 30 * 86_400 },
        },
      ],
    },
    setup: {
      title: 'PC Setup Session',
      description: 'A one-hour remote session: drivers, launchers and settings tuned for games.',
      variants: [
        {
          title: 'One hour',
          priceDetails: { amount: 15 },
          productType: 'service',
          asService: {
            text: 'Thank you! Reply to this e-mail with two time slots that suit you and we will call you.',
            stock: null,
          },
          customFields: [{ name: 'Discord name', type: 'text', required: false }],
        },
      ],
    },
    avatar: {
      title: 'Custom Avatar',
      description: 'A hand-drawn avatar, delivered by our artist service.',
      variants: [
        {
          title: 'Avatar',
          priceDetails: { amount: 9.5 },
          productType: 'dynamic',
          asDynamic: { externalUrl: 'https://example.com/shopd-demo/avatar', stock: null },
        },
      ],
    },
    ebook: {
      title: 'The Little Book of Digital Delivery (PDF)',
      description:
        'A short e-book on selling files. Download the PDF from your order page: five downloads, fresh links.',
      shortDescription: 'E-book, PDF',
      variants: [
        {
          title: 'PDF',
          priceDetails: { amount: 7.99 },
          productType: 'file',
          asFile: { fileIds: [files.ebook], downloadLimit: 5, linkHours: 24 },
        },
      ],
    },
    notes: {
      title: 'Chronicle Notes — 1-year licence',
      description:
        'A note-taking program. Download it from your order page and run it with your licence key: ' +
        'the key activates up to three computers for a year.',
      shortDescription: 'Software with a licence key',
      variants: [
        {
          title: '1 year, 3 computers',
          priceDetails: { amount: 24 },
          productType: 'file',
          asFile: { fileIds: [files.program] },
          license: { activationLimit: 3, validDays: 365, keyPattern: 'NOTE-XXXX-XXXX-XXXX' },
        },
      ],
    },
  } as const;
}

export type DemoProductKey = keyof ReturnType<typeof demoProducts>;

/** What buyers pick, by weight: [product, variant index, weight]. */
export const orderMix: readonly (readonly [readonly [DemoProductKey, number], number])[] = [
  [['starfall', 0], 30],
  [['starfall', 1], 10],
  [['pixel', 0], 25],
  [['vpn', 0], 15],
  [['setup', 0], 12],
  [['avatar', 0], 8],
  [['ebook', 0], 8],
  [['notes', 0], 6],
];

export const customerNames = [
  'alex',
  'bianca',
  'chen',
  'dmitri',
  'emma',
  'farah',
  'gabriel',
  'hana',
  'ivan',
  'julia',
  'kofi',
  'lena',
  'mateo',
  'nadia',
  'oscar',
  'priya',
  'quinn',
  'rosa',
  'sven',
  'tomoko',
  'umar',
  'vera',
  'wen',
  'ximena',
  'yusuf',
  'zoe',
  'noah',
  'mila',
] as const;

export const userAgents = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
] as const;

export const feedbackComments: Record<number, readonly string[]> = {
  5: [
    'Instant delivery, key worked right away.',
    'Great price and super fast.',
    'Third purchase here, always smooth.',
    'Perfect, thanks!',
  ],
  4: ['Worked fine, took a few minutes to arrive.', 'Good deal, would buy again.', 'All good.'],
  3: ['Key worked but the e-mail landed in spam.', 'OK experience.'],
  2: ['Had to ask support for a replacement, but they sorted it.'],
  1: ['Wrong region at first; support replaced it after a day.'],
};

export const ratingMix: readonly (readonly [number, number])[] = [
  [5, 55],
  [4, 25],
  [3, 10],
  [2, 6],
  [1, 4],
];

export const faqs = [
  {
    question: 'How fast is delivery?',
    answer: 'Keys and services are delivered by e-mail as soon as the payment is confirmed, usually within minutes.',
  },
  {
    question: 'Which payment methods do you accept?',
    answer: 'Tip jar transfers, and your shop balance for returning customers.',
  },
  {
    question: 'My key does not work. What now?',
    answer: 'Open a support ticket with your invoice id and we will send a replacement.',
  },
];

export const announcements = [
  {
    title: 'Spring sale: 10 % off everything',
    shortDescription: 'Use the code WELCOME10 at checkout.',
    description: 'For a limited time, the code WELCOME10 takes 10 % off any order.',
    buttonText: 'Shop now',
    buttonLink: 'https://example.com/',
  },
  {
    title: 'New: PC Setup Sessions',
    shortDescription: 'Let us tune your gaming PC.',
    description: 'Book a one-hour remote session with our technicians.',
  },
];

export const tickets = [
  {
    title: 'Key shows as already redeemed',
    message: 'Hi, Steam says my Starfall key was already used. Can you check?',
  },
  { title: 'Invoice for my company', message: 'Could you send an invoice with my company name on it?' },
  { title: 'When is my setup session?', message: 'I bought a PC Setup Session yesterday; when can we schedule it?' },
];
