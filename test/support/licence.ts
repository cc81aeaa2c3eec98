import { generateKeyPairSync } from "node:crypto";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { LICENSE_KIND, LICENSE_NAME, LICENSE_PLURAL } from "../../lib/kinds/license/schema.js";
import type { CappedKind, Feature } from "../../lib/licence/entitlements.js";
import { signLicense } from "../../lib/licence/token.js";

/** A vendor key made for this test process; trusted only by the contexts a test hands it to. */
const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
export const TEST_KEY_ID = "test-vendor";
export const TEST_TRUSTED_KEYS: ReadonlyMap<string, string> = new Map([[TEST_KEY_ID, publicKey]]);

export function testLicenceToken(options: {
  readonly caps?: Partial<Record<CappedKind, number>>;
  readonly features?: readonly Feature[];
  readonly notBefore?: string;
  readonly expiresAt?: string;
}): string {
  return signLicense(
    {
      licenseId: "lic-test",
      licensee: "navique tests",
      issuedAt: options.notBefore ?? "2026-01-01T00:00:00Z",
      notBefore: options.notBefore ?? "2026-01-01T00:00:00Z",
      expiresAt: options.expiresAt ?? "2099-01-01T00:00:00Z",
      features: [...(options.features ?? [])],
      caps: { ...(options.caps ?? {}) },
    },
    privateKey,
    TEST_KEY_ID,
  );
}

/** Applies the License singleton with a token signed by the test key. */
export async function applyLicence(client: KubeClient, token: string): Promise<void> {
  await client.apply({
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: LICENSE_KIND,
    metadata: { name: LICENSE_NAME },
    spec: { token },
  } as never);
}

export async function removeLicence(client: KubeClient): Promise<void> {
  await orUndefined(
    client.custom.deleteClusterCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: LICENSE_PLURAL,
      name: LICENSE_NAME,
    }),
  );
}
