/**
 * Licence verification cost: signs one token with a fresh Ed25519 key, then verifies it many times
 * (signature, payload schema, validity window) and prints the time per verification. Asserts nothing.
 *
 *   npx tsx bench/licence-verify.ts
 */
import { generateKeyPairSync } from "node:crypto";
import { performance } from "node:perf_hooks";
import { signLicense, verifyLicense } from "../lib/licence/token.js";

const RUNS = 5_000;
const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const token = signLicense(
  {
    licenseId: "bench",
    licensee: "Benchmark",
    issuedAt: "2027-01-01T00:00:00Z",
    notBefore: "2027-01-01T00:00:00Z",
    expiresAt: "2028-01-01T00:00:00Z",
    features: ["auto-wiring", "stack", "identities"],
    caps: { Gateway: 10, PostgresCluster: 20, ChatUI: 10, Stack: 5, Organization: 5, Team: 50, User: 500 },
  },
  privateKey,
  "bench-key",
);
const options = { trustedKeys: new Map([["bench-key", publicKey]]), now: new Date("2027-06-01T00:00:00Z") };
for (let i = 0; i < 200; i++) verifyLicense(token, options); // warm-up
const started = performance.now();
for (let i = 0; i < RUNS; i++) verifyLicense(token, options);
const perRun = (performance.now() - started) / RUNS;
process.stdout.write(
  `licence verification: ${RUNS} runs, ${(perRun * 1000).toFixed(1)} µs each (${Math.round(1000 / perRun)} per second); token ${token.length} bytes\n`,
);
