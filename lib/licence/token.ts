import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { CAPPED_KINDS, FEATURES } from "./entitlements.js";
import { LicensePayload } from "./payload.js";
import { quoteUntrusted } from "./untrusted-text.js";

/** Version tag of the token format: `nvq1.<keyId>.<payload>.<signature>`, base64url parts. */
export const TOKEN_VERSION = "nvq1";
const KEY_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ED25519_SIGNATURE_BYTES = 64;

export type LicenseErrorCode =
  | "malformed"
  | "unknown-key"
  | "bad-signature"
  | "invalid-payload"
  | "unknown-feature"
  | "unknown-kind"
  | "not-yet-valid"
  | "expired";

/** A licence refused, with a code a program can test and a message a person can act on. */
export class LicenseError extends Error {
  constructor(
    readonly code: LicenseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "LicenseError";
  }
}

export interface VerifiedLicense {
  readonly keyId: string;
  readonly payload: LicensePayload;
}

/** Strict base64url: the text must be exactly what its bytes encode to (no padding bits, no stray characters). */
function decodeCanonical(text: string, what: string): Buffer {
  const bytes = Buffer.from(text, "base64url");
  if (text.length === 0 || bytes.toString("base64url") !== text) {
    throw new LicenseError(
      "malformed",
      `the licence token's ${what} is not valid base64url: copy the whole token again`,
    );
  }
  return bytes;
}

/** Unknown features and kinds get errors of their own: they are the likeliest mismatch of versions. */
function refuseUnknownNames(payload: unknown): void {
  if (typeof payload !== "object" || payload === null) return;
  const { features, caps } = payload as { features?: unknown; caps?: unknown };
  if (Array.isArray(features)) {
    const unknown = features.filter((f) => !(FEATURES as readonly unknown[]).includes(f));
    if (unknown.length > 0) {
      throw new LicenseError(
        "unknown-feature",
        `the licence names unknown feature(s) ${unknown.map((f) => JSON.stringify(f)).join(", ")}; known features: ${FEATURES.join(", ")} (no wildcards)`,
      );
    }
  }
  if (typeof caps === "object" && caps !== null) {
    const unknown = Object.keys(caps).filter((k) => !(CAPPED_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) {
      throw new LicenseError(
        "unknown-kind",
        `the licence caps unknown kind(s) ${unknown.join(", ")}; known kinds: ${CAPPED_KINDS.join(", ")}`,
      );
    }
  }
}

function parsePayload(raw: unknown): LicensePayload {
  refuseUnknownNames(raw);
  const parsed = LicensePayload.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "<payload>"}: ${i.message}`).join("; ");
    throw new LicenseError("invalid-payload", `the licence payload is invalid: ${problems}`);
  }
  return parsed.data;
}

/** Signs a payload with an Ed25519 private key (PEM). Refuses unknown features and kinds, like verification. */
export function signLicense(payload: unknown, privateKeyPem: string, keyId: string): string {
  if (!KEY_ID.test(keyId))
    throw new LicenseError("malformed", `key id "${keyId}" must be lowercase letters, digits and '-'`);
  const checked = parsePayload(payload);
  const body = Buffer.from(JSON.stringify(checked)).toString("base64url");
  const signed = `${TOKEN_VERSION}.${keyId}.${body}`;
  const signature = sign(null, Buffer.from(signed), createPrivateKey(privateKeyPem));
  return `${signed}.${signature.toString("base64url")}`;
}

/** Signature checks already made, by key and signed text: the operator verifies the same licence every pass. */
const verified = new Map<string, boolean>();
const VERIFIED_KEPT = 16;

/**
 * Whether `signature` signs `message` under `publicKey` (ed25519). A pure function of its inputs, so its
 * answers are kept (a few): a pass over each of a thousand resources at each resync re-verified the same
 * token, a tenth of the operator's time at steady state (docs/performance.md).
 */
function signatureValid(message: string, publicKey: string, signature: Buffer): boolean {
  const key = `${publicKey}\u0000${message}\u0000${signature.toString("base64")}`;
  const known = verified.get(key);
  if (known !== undefined) return known;
  const valid = verify(null, Buffer.from(message), createPublicKey(publicKey), signature);
  if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value ?? "");
  verified.set(key, valid);
  return valid;
}

/**
 * Verifies a token offline with Node's crypto against the trusted public keys: shape, key id, signature
 * (before the payload is even read), payload, then the validity window at `now`.
 */
export function verifyLicense(
  token: string,
  options: { readonly trustedKeys: ReadonlyMap<string, string>; readonly now: Date },
): VerifiedLicense {
  const parts = token.trim().split(".");
  if (parts.length !== 4 || parts[0] !== TOKEN_VERSION) {
    throw new LicenseError(
      "malformed",
      `not a navique licence token: expected ${TOKEN_VERSION}.<key id>.<payload>.<signature>`,
    );
  }
  const [version, keyId = "", body = "", signatureText = ""] = parts;
  // The key id is read before anything is verified: it is quoted only once it has the form of a key id,
  // and then escaped and bounded all the same, since the message reaches statuses and Events.
  if (!KEY_ID.test(keyId)) {
    throw new LicenseError(
      "malformed",
      `the licence token's key id ${quoteUntrusted(keyId)} is not a key id (lowercase letters, digits and '-', at most 63 characters): copy the whole token again`,
    );
  }
  const publicKey = options.trustedKeys.get(keyId);
  if (!publicKey) {
    throw new LicenseError(
      "unknown-key",
      `the licence is signed with key ${quoteUntrusted(keyId)}, which this product does not trust (trusted: ${[...options.trustedKeys.keys()].join(", ") || "none"}): upgrade the product or ask for a licence signed with a current key`,
    );
  }
  const signature = decodeCanonical(signatureText, "signature");
  const payloadBytes = decodeCanonical(body, "payload");
  if (
    signature.length !== ED25519_SIGNATURE_BYTES ||
    !signatureValid(`${version}.${keyId}.${body}`, publicKey, signature)
  ) {
    throw new LicenseError(
      "bad-signature",
      "the licence signature does not match its content: the token was altered or damaged; copy it again from the original",
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(payloadBytes.toString("utf8"));
  } catch {
    throw new LicenseError("malformed", "the licence payload is not JSON");
  }
  const payload = parsePayload(raw);
  const now = options.now.getTime();
  if (now < Date.parse(payload.notBefore)) {
    throw new LicenseError("not-yet-valid", `licence ${payload.licenseId} is not valid before ${payload.notBefore}`);
  }
  if (now >= Date.parse(payload.expiresAt)) {
    throw new LicenseError(
      "expired",
      `licence ${payload.licenseId} expired at ${payload.expiresAt}: renew it; Community defaults apply meanwhile`,
    );
  }
  return { keyId, payload };
}
