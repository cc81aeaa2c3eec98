import { generateKeyPairSync, sign } from "node:crypto";
import fc from "fast-check";
import { enforceCap, enforceFeature, type Instance } from "../../lib/licence/enforce.js";
import { COMMUNITY_CAPS } from "../../lib/licence/entitlements.js";
import { resolveEntitlements } from "../../lib/licence/resolve.js";
import { LicenseError, signLicense, verifyLicense } from "../../lib/licence/token.js";

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKey, publicKey };
}

const vendor = keyPair();
const trustedKeys = new Map([["test-key", vendor.publicKey]]);
const now = new Date("2027-01-15T00:00:00Z");
const payload = {
  licenseId: "lic-001",
  licensee: "Example AG",
  issuedAt: "2027-01-01T00:00:00Z",
  notBefore: "2027-01-01T00:00:00Z",
  expiresAt: "2027-02-01T00:00:00Z",
  features: ["auto-wiring", "stack"],
  caps: { Gateway: 5, PostgresCluster: 10, Stack: 2 },
};
const token = signLicense(payload, vendor.privateKey, "test-key");

function refusal(run: () => unknown): LicenseError {
  try {
    run();
  } catch (error) {
    if (error instanceof LicenseError) return error;
    throw error;
  }
  throw new Error("expected a LicenseError");
}

/** Signs raw JSON as the vendor would, bypassing signLicense's own checks (to test verification's). */
function signRaw(raw: unknown): string {
  const body = Buffer.from(JSON.stringify(raw)).toString("base64url");
  const signed = `nvq1.test-key.${body}`;
  return `${signed}.${sign(null, Buffer.from(signed), vendor.privateKey).toString("base64url")}`;
}

describe("licence tokens", () => {
  it("verify offline with the trusted public key", () => {
    expect(verifyLicense(token, { trustedKeys, now })).toEqual({ keyId: "test-key", payload });
  });

  it("reject any single flipped byte of the payload or of the signature", () => {
    const [version, keyId, body = "", signature = ""] = token.split(".");
    const bytes = { payload: Buffer.from(body, "base64url"), signature: Buffer.from(signature, "base64url") };
    fc.assert(
      fc.property(
        fc.constantFrom("payload" as const, "signature" as const),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (part, at, mask) => {
          const altered = Buffer.from(bytes[part]);
          const index = at % altered.length;
          altered[index] = (altered[index] ?? 0) ^ mask;
          const forged =
            part === "payload"
              ? `${version}.${keyId}.${altered.toString("base64url")}.${signature}`
              : `${version}.${keyId}.${body}.${altered.toString("base64url")}`;
          expect(refusal(() => verifyLicense(forged, { trustedKeys, now })).code).toBe("bad-signature");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reject every single altered character of the token text", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    for (let index = 0; index < token.length; index++) {
      const replacement = alphabet[(alphabet.indexOf(token[index] ?? "A") + 7) % alphabet.length] ?? "A";
      const forged = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
      expect(() => verifyLicense(forged, { trustedKeys, now })).toThrow(LicenseError);
    }
  });

  it("reject a token signed by a key the product does not trust", () => {
    const impostor = signLicense(payload, keyPair().privateKey, "test-key");
    expect(refusal(() => verifyLicense(impostor, { trustedKeys, now })).code).toBe("bad-signature");
    const unknown = signLicense(payload, keyPair().privateKey, "other-key");
    const error = refusal(() => verifyLicense(unknown, { trustedKeys, now }));
    expect(error.code).toBe("unknown-key");
    expect(error.message).toContain(
      'signed with key "other-key", which this product does not trust (trusted: test-key)',
    );
  });

  it("quote a hostile key id of a token that does not verify escaped and bounded, never as it is", () => {
    const forged = (keyId: string) => `nvq1.${keyId}.${token.split(".")[2]}.${token.split(".")[3]}`;
    const newline = refusal(() => verifyLicense(forged("evil\nValid: True"), { trustedKeys, now }));
    expect(newline).toMatchObject({
      code: "malformed",
      message:
        "the licence token's key id \"evil\\nValid: True\" is not a key id (lowercase letters, digits and '-', at most 63 characters): copy the whole token again",
    });
    const long = refusal(() => verifyLicense(forged("k".repeat(200_000)), { trustedKeys, now }));
    expect(long.message).toBe(
      `the licence token's key id "${"k".repeat(64)}"… (200000 characters) is not a key id (lowercase letters, digits and '-', at most 63 characters): copy the whole token again`,
    );
    const bidi = refusal(() => verifyLicense(forged('a\u202eb\u0000"c'), { trustedKeys, now }));
    expect(bidi.message).toContain('key id "a\\u202eb\\u0000\\"c" is not a key id');
    // What reaches the License's status and every refused resource's condition and Event.
    const reason = resolveEntitlements(forged("evil\r\nkey"), { trustedKeys, now }).reason ?? "";
    expect(reason).toBe(
      "malformed: the licence token's key id \"evil\\r\\nkey\" is not a key id (lowercase letters, digits and '-', at most 63 characters): copy the whole token again",
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (keyId) => {
        const message = resolveEntitlements(forged(keyId.replaceAll(".", "")), { trustedKeys, now }).reason ?? "";
        expect(message).toMatch(/^[\x20-\x7e…]*$/u);
        expect(message.length).toBeLessThan(700);
      }),
      { numRuns: 300, seed: 20 },
    );
  });

  it("give distinct, explicit errors for each kind of bad licence", () => {
    expect(refusal(() => verifyLicense("not a token", { trustedKeys, now }))).toMatchObject({
      code: "malformed",
      message: "not a navique licence token: expected nvq1.<key id>.<payload>.<signature>",
    });
    expect(refusal(() => verifyLicense(token, { trustedKeys, now: new Date("2026-12-31T00:00:00Z") }))).toMatchObject({
      code: "not-yet-valid",
      message: "licence lic-001 is not valid before 2027-01-01T00:00:00Z",
    });
    expect(refusal(() => verifyLicense(token, { trustedKeys, now: new Date("2027-02-01T00:00:00Z") }))).toMatchObject({
      code: "expired",
      message: "licence lic-001 expired at 2027-02-01T00:00:00Z: renew it; Community defaults apply meanwhile",
    });
    const wildcard = { ...payload, features: ["*"] };
    expect(refusal(() => signLicense(wildcard, vendor.privateKey, "test-key"))).toMatchObject({
      code: "unknown-feature",
    });
    expect(refusal(() => verifyLicense(signRaw(wildcard), { trustedKeys, now }))).toMatchObject({
      code: "unknown-feature",
      message:
        'the licence names unknown feature(s) "*"; known features: auto-wiring, stack, identities (no wildcards)',
    });
    expect(
      refusal(() => verifyLicense(signRaw({ ...payload, caps: { Widget: 1 } }), { trustedKeys, now })),
    ).toMatchObject({
      code: "unknown-kind",
    });
  });

  it("refuses a feature whose kinds the licence does not cap, at signing and at verification", () => {
    const uncapped = { ...payload, features: ["identities"], caps: { Organization: 1 } };
    const expected = {
      code: "invalid-payload",
      message:
        'the licence payload is invalid: caps.Team: feature "identities" needs caps.Team: say how many Team instances the licence allows (the Community cap is 0); caps.User: feature "identities" needs caps.User: say how many User instances the licence allows (the Community cap is 0)',
    };
    expect(refusal(() => signLicense(uncapped, vendor.privateKey, "test-key"))).toMatchObject(expected);
    expect(refusal(() => verifyLicense(signRaw(uncapped), { trustedKeys, now }))).toMatchObject(expected);
  });
});

describe("entitlements and enforcement", () => {
  it("apply the licence while valid and fall back to Community, with the reason, when not", () => {
    const licensed = resolveEntitlements(token, { now, trustedKeys });
    expect(licensed.edition).toBe("Licensed");
    expect([...licensed.features]).toEqual(["auto-wiring", "stack"]);
    expect(licensed.caps.Gateway).toBe(5);
    expect(licensed.caps.ChatUI).toBe(COMMUNITY_CAPS.ChatUI);
    const expired = resolveEntitlements(token, { now: new Date("2027-03-01T00:00:00Z"), trustedKeys });
    expect(expired).toMatchObject({
      edition: "Community",
      reason: expect.stringContaining("expired: licence lic-001 expired"),
    });
    expect(resolveEntitlements(undefined, { now })).toMatchObject({ edition: "Community" });
  });

  it("skip an unlicensed feature, naming it and how to get it", () => {
    const community = resolveEntitlements(undefined, { now });
    expect(enforceFeature(community, "auto-wiring", "Gateway team-a/gw")).toEqual({
      allowed: false,
      reason: "FeatureNotLicensed",
      message:
        'Gateway team-a/gw uses feature "auto-wiring", which the Community edition does not include; it is skipped. To use it, ask your navique account contact for a licence that includes it, then apply it as the License named `navique`',
    });
    expect(enforceFeature(resolveEntitlements(token, { now, trustedKeys }), "auto-wiring", "x")).toEqual({
      allowed: true,
    });
  });

  it("refuse only new instances beyond a cap, in creation order, never an admitted one", () => {
    const community = resolveEntitlements(undefined, { now }); // PostgresCluster cap 2
    const at = (minute: number) => `2027-01-01T00:${String(minute).padStart(2, "0")}:00Z`;
    const instances: Instance[] = [
      { namespace: "b", name: "second", creationTimestamp: at(2), admitted: false },
      { namespace: "a", name: "first", creationTimestamp: at(1), admitted: false },
      { namespace: "a", name: "tie", creationTimestamp: at(3), admitted: false },
      { namespace: "a", name: "also-tie", creationTimestamp: at(3), admitted: false },
    ];
    const decide = (name: string) =>
      enforceCap(community, "PostgresCluster", instances, instances.find((i) => i.name === name) as Instance).allowed;
    expect(["first", "second", "also-tie", "tie"].map(decide)).toEqual([true, true, false, false]);
    const refused = enforceCap(community, "PostgresCluster", instances, instances[2] as Instance);
    expect(refused).toMatchObject({
      reason: "InstanceCapExceeded",
      message: expect.stringContaining("PostgresCluster a/tie is refused: the Community edition allows 2"),
    });
    // Caps shrink at expiry: instances admitted under the licence keep running, only new ones wait.
    const admitted = instances.map((i) => ({ ...i, admitted: true }));
    expect(admitted.every((i) => enforceCap(community, "PostgresCluster", admitted, i).allowed)).toBe(true);
  });
});
