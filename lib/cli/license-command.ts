import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CAPPED_KINDS } from "../licence/entitlements.js";
import { resolveEntitlements } from "../licence/resolve.js";
import { type LicenseError, signLicense, verifyLicense } from "../licence/token.js";
import { TRUSTED_KEYS } from "../licence/trusted-keys.js";

export interface LicenseCommandOptions {
  readonly out?: string;
  readonly keyId?: string;
  readonly key?: string;
  readonly payload?: string;
  readonly token?: string;
  readonly file?: string;
  readonly trust?: readonly string[];
  readonly now?: string;
}

const DAY_MS = 86_400_000;

function required(value: string | undefined, flag: string, what: string): string {
  if (!value) throw new Error(`license ${what} needs ${flag}`);
  return value;
}

async function readToken(options: LicenseCommandOptions): Promise<string> {
  if (options.token) return options.token.trim();
  if (options.file) return (await readFile(options.file, "utf8")).trim();
  throw new Error("give the licence with --token TOKEN or --file PATH");
}

/** The product's trusted keys plus any `--trust ID=PUBLIC_KEY_FILE` (a vendor checking a key not yet shipped). */
export async function trustedKeys(extra: readonly string[] = []): Promise<Map<string, string>> {
  const keys = new Map(TRUSTED_KEYS);
  for (const entry of extra) {
    const [id, file] = entry.split("=", 2);
    if (!id || !file) throw new Error(`--trust ${entry}: expected KEY_ID=PUBLIC_KEY_FILE`);
    keys.set(id, await readFile(file, "utf8"));
  }
  return keys;
}

function clock(now: string | undefined): Date {
  if (now === undefined) return new Date();
  const parsed = new Date(now);
  if (Number.isNaN(parsed.getTime()))
    throw new Error(`--now ${now}: expected an RFC 3339 instant such as 2027-01-31T00:00:00Z`);
  return parsed;
}

/** `navique license <keygen|sign|verify|inspect>`; writes its report to stdout, returns the exit code. */
export async function runLicense(action: string | undefined, options: LicenseCommandOptions): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  switch (action) {
    case "keygen": {
      const dir = required(options.out, "--out DIR", "keygen");
      const keyId = required(options.keyId, "--key-id ID", "keygen");
      const privateFile = join(dir, `${keyId}.private.pem`);
      if (existsSync(privateFile)) throw new Error(`${privateFile} exists: refusing to overwrite a private key`);
      const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
        privateKeyEncoding: { type: "pkcs8", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      });
      await mkdir(dir, { recursive: true });
      await writeFile(privateFile, privateKey, { mode: 0o600 });
      await writeFile(join(dir, `${keyId}.public.pem`), publicKey);
      out(`wrote ${privateFile} (keep it secret) and ${join(dir, `${keyId}.public.pem`)}`);
      return 0;
    }
    case "sign": {
      const key = await readFile(required(options.key, "--key PRIVATE_KEY_FILE", "sign"), "utf8");
      const payload = JSON.parse(
        await readFile(required(options.payload, "--payload PAYLOAD.json", "sign"), "utf8"),
      ) as unknown;
      out(signLicense(payload, key, required(options.keyId, "--key-id ID", "sign")));
      return 0;
    }
    case "verify": {
      const { payload, keyId } = verifyLicense(await readToken(options), {
        trustedKeys: await trustedKeys(options.trust),
        now: clock(options.now),
      });
      out(
        `valid: licence ${payload.licenseId} for ${payload.licensee}, signed with key ${keyId}, expires ${payload.expiresAt}`,
      );
      return 0;
    }
    case "inspect": {
      const now = clock(options.now);
      const token = await readToken(options);
      const entitlements = resolveEntitlements(token, { now, trustedKeys: await trustedKeys(options.trust) });
      if (entitlements.edition === "Community") {
        out(`edition: Community (the licence does not apply: ${entitlements.reason})`);
      } else {
        const days = Math.floor(((entitlements.expiresAt?.getTime() ?? 0) - now.getTime()) / DAY_MS);
        out(
          `edition: Licensed — licence ${entitlements.licenseId}, expires ${entitlements.expiresAt?.toISOString()} (${days} days left)`,
        );
      }
      out(`features: ${[...entitlements.features].join(", ") || "none"}`);
      out("instance caps:");
      for (const kind of CAPPED_KINDS) out(`  ${kind.padEnd(20)} ${entitlements.caps[kind]}`);
      return entitlements.edition === "Licensed" ? 0 : 1;
    }
    default:
      throw new Error(
        `license needs one of keygen, sign, verify, inspect (got ${action === undefined ? "nothing" : `"${action}"`})`,
      );
  }
}

/** Distinct exit codes per refusal, for scripts: 0 valid, 1 other errors, 10+ licence errors. */
export const LICENSE_EXIT_CODES: Record<LicenseError["code"], number> = {
  malformed: 10,
  "unknown-key": 11,
  "bad-signature": 12,
  "invalid-payload": 13,
  "unknown-feature": 14,
  "unknown-kind": 15,
  "not-yet-valid": 16,
  expired: 17,
};
