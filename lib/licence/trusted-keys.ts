/**
 * The public keys licences are verified with, by key id. The product holds public keys only; the
 * private keys stay with the vendor. Rotation: add the new key here, sign new licences with it, remove
 * the old key once no licence signed with it is in use.
 */
export const TRUSTED_KEYS: ReadonlyMap<string, string> = new Map([
  [
    "navique-2026-11",
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAkDn1P1uQibx3bnWXuMjycORyQJaI1hA1n5iY1Po8rcE=\n-----END PUBLIC KEY-----\n",
  ],
]);
