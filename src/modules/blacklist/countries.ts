/**
 * ISO 3166-1 alpha-2 codes officially assigned (249), written as first letter: second letters.
 * Plus XK (Kosovo): user-assigned in ISO 3166 but what geolocation headers such as
 * CF-IPCountry send for Kosovo, so an owner must be able to block it. Deliberately absent:
 * exceptionally reserved and withdrawn codes (EU, UK, AN, YU, ...) and the XX/T1 markers for
 * unknown origin and Tor, which no request header reliably maps to a country.
 */
const assigned =
  'A:DEFGILMOQRSTUWXZ B:ABDEFGHIJLMNOQRSTVWYZ C:ACDFGHIKLMNORUVWXYZ D:EJKMOZ E:CEGHRST F:IJKMOR ' +
  'G:ABDEFGHILMNPQRSTUWY H:KMNRTU I:DELMNOQRST J:EMOP K:EGHIMNPRWYZ L:ABCIKRSTUVY ' +
  'M:ACDEFGHKLMNOPQRSTUVWXYZ N:ACEFGILOPRUZ O:M P:AEFGHKLMNRSTWY Q:A R:EOSUW ' +
  'S:ABCDEGHIJKLMNORSTVXYZ T:CDFGHJKLMNORTVWZ U:AGMSYZ V:ACEGINU W:FS Y:ET Z:AMW';

export const countryCodes: ReadonlySet<string> = new Set([
  ...assigned.split(' ').flatMap((group) => {
    const [first, seconds] = group.split(':') as [string, string];
    return [...seconds].map((second) => first + second);
  }),
  'XK',
]);

/** The codes above as a pattern, either case: `[Dd][EeJjKk...]` for each first letter, and XK. */
export const COUNTRY_CODE_PATTERN = [
  ...assigned.split(' ').map((group) => {
    const [first, seconds] = group.split(':') as [string, string];
    return `[${first}${first.toLowerCase()}][${seconds}${seconds.toLowerCase()}]`;
  }),
  '[Xx][Kk]',
].join('|');
