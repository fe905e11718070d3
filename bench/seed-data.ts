/** The vocabulary of the benchmark shop: what it sells and who buys it. */
import { pick } from '../src/modules/seed/demo-data.js';

// The demo shop's seeded generator and pickers (mulberry32): every benchmark database looks alike.
export { pick, pickWeighted, seededRandom } from '../src/modules/seed/demo-data.js';

export type Random = () => number;

const KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A licence-key-looking value, unique for a distinct (prefix, n): `STAR-7K2QD-…`. */
export function serialValue(prefix: string, n: number, random: Random): string {
  let code = '';
  let x = n;
  for (let i = 0; i < 6; i++) {
    code += KEY_ALPHABET[x % 32];
    x = Math.floor(x / 32);
  }
  const noise = () => Array.from({ length: 5 }, () => pick(random, KEY_ALPHABET.split(''))).join('');
  return `${prefix}-${code.slice(0, 3)}${noise().slice(0, 2)}-${code.slice(3)}${noise().slice(0, 2)}-${noise()}`;
}

export const firstNames = [
  'alex',
  'maria',
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
  'lucas',
  'sofia',
  'liam',
  'olivia',
  'ethan',
  'ava',
  'mohammed',
  'fatima',
  'arjun',
  'ananya',
  'kenji',
  'yuki',
  'pierre',
  'camille',
  'jonas',
  'lea',
  'marco',
  'giulia',
  'pavel',
  'anna',
  'diego',
  'lucia',
  'kwame',
  'amara',
  'tariq',
  'leila',
  'bjorn',
  'ingrid',
  'rafael',
  'beatriz',
];

export const lastNames = [
  'smith',
  'garcia',
  'wang',
  'ivanov',
  'muller',
  'rossi',
  'silva',
  'kim',
  'nguyen',
  'khan',
  'novak',
  'jensen',
  'moreau',
  'tanaka',
  'kowalski',
  'cohen',
  'okafor',
  'mensah',
  'haddad',
  'larsen',
  'ferreira',
  'schmidt',
  'dubois',
  'romero',
  'sato',
  'patel',
  'ali',
  'brown',
  'lopez',
  'martin',
  'wilson',
  'taylor',
  'anderson',
  'thomas',
  'lee',
  'walker',
  'young',
  'hall',
  'allen',
  'king',
];

export const mailDomains: readonly (readonly [string, number])[] = [
  ['gmail.com', 40],
  ['outlook.com', 12],
  ['yahoo.com', 10],
  ['hotmail.com', 8],
  ['icloud.com', 8],
  ['proton.me', 6],
  ['gmx.de', 4],
  ['web.de', 3],
  ['mail.ru', 3],
  ['example.org', 6],
];

export const userAgents = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
  'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
];

export const countries: readonly (readonly [string | null, number])[] = [
  ['US', 30],
  ['DE', 10],
  ['GB', 8],
  ['FR', 6],
  ['BR', 6],
  ['IN', 5],
  ['PL', 4],
  ['CA', 4],
  ['NL', 3],
  ['JP', 3],
  [null, 21],
];

export const ratingMix: readonly (readonly [number, number])[] = [
  [5, 58],
  [4, 22],
  [3, 9],
  [2, 6],
  [1, 5],
];

export const feedbackComments: Record<number, readonly string[]> = {
  5: [
    'Instant delivery, key worked right away.',
    'Great price and super fast.',
    'Third purchase here, always smooth.',
    'Perfect, thanks!',
    'Legit seller.',
  ],
  4: [
    'Worked fine, took a few minutes to arrive.',
    'Good deal, would buy again.',
    'All good.',
    'Fast, but the mail went to spam.',
  ],
  3: ['Key worked but the e-mail landed in spam.', 'OK experience.', 'Took a while.'],
  2: ['Had to ask support for a replacement, but they sorted it.', 'Slow answer from support.'],
  1: ['Wrong region at first; support replaced it after a day.', 'Key did not work.'],
};

export const shopAnswers = [
  'Thanks for your order!',
  'Glad it worked out, enjoy!',
  'Sorry about that, we have improved our process.',
];

const gameWords = [
  'Starfall',
  'Pixel',
  'Iron',
  'Shadow',
  'Crystal',
  'Neon',
  'Frost',
  'Ember',
  'Void',
  'Solar',
  'Lunar',
  'Thunder',
  'Rogue',
  'Titan',
  'Echo',
  'Nova',
  'Quantum',
  'Mystic',
  'Savage',
  'Silent',
  'Arcane',
  'Crimson',
  'Golden',
  'Hollow',
  'Wild',
];
const gameNouns = [
  'Odyssey',
  'Dungeon',
  'Legion',
  'Frontier',
  'Tactics',
  'Kingdoms',
  'Racer',
  'Outpost',
  'Saga',
  'Protocol',
  'Drift',
  'Hunters',
  'Empire',
  'Horizon',
  'Arena',
  'Chronicles',
  'Survivors',
  'Forge',
  'Rebellion',
  'Depths',
];
const platforms = ['Steam Key', 'Epic Key', 'GOG Key', 'Xbox Key', 'PSN Code'];
const software = [
  ['SecureNet VPN', 'Year'],
  ['CloudVault Backup', 'Year'],
  ['PhotoForge Pro', 'Licence'],
  ['CodeSmith IDE', 'Licence'],
  ['AntiVirus Shield', 'Year'],
  ['Office Suite Home', 'Licence'],
  ['StreamBox Premium', 'Month'],
  ['MusicFlow', 'Month'],
] as const;
const services = [
  'PC Setup Session',
  'Account Boosting',
  'Coaching Hour',
  'Logo Design',
  'Server Setup',
  'Mod Installation',
  'Tune-up Service',
];

export interface CatalogItem {
  title: string;
  kind: 'game' | 'software' | 'service';
  shortDescription: string;
  description: string;
}

/** `count` distinct product titles with short descriptions: games, software licences, services. */
export function catalogItems(random: Random, count: number): CatalogItem[] {
  const seen = new Set<string>();
  const items: CatalogItem[] = [];
  while (items.length < count) {
    const roll = random();
    let item: CatalogItem;
    if (roll < 0.6) {
      const title = `${pick(random, gameWords)} ${pick(random, gameNouns)} — ${pick(random, platforms)}`;
      item = {
        title,
        kind: 'game',
        shortDescription: `${pick(random, ['Open-world', 'Co-op', 'Retro', 'Competitive', 'Story-driven', 'Indie'])} ${pick(random, ['adventure', 'shooter', 'roguelike', 'strategy', 'racing', 'RPG'])}, region free`,
        description: `${title}. Redeem the key on the platform named in the title; delivered instantly by e-mail after payment. Region free unless stated otherwise.`,
      };
    } else if (roll < 0.85) {
      const [name, unit] = pick(random, software);
      const n = pick(random, [1, 1, 2, 3, 5]);
      const title = `${name} — ${n} ${unit}${n > 1 ? 's' : ''}`;
      item = {
        title,
        kind: 'software',
        shortDescription: `${name} licence, activate in the app`,
        description: `${title}. One licence key, activated from inside the application. Instant delivery.`,
      };
    } else {
      const title = `${pick(random, services)} ${pick(random, ['Basic', 'Plus', 'Pro', 'Express', 'Deluxe'])}`;
      item = {
        title,
        kind: 'service',
        shortDescription: 'Booked after payment, done remotely',
        description: `${title}. After payment, reply to the delivery e-mail with two time slots that suit you.`,
      };
    }
    if (seen.has(item.title)) continue;
    seen.add(item.title);
    items.push(item);
  }
  return items;
}
