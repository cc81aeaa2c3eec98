import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The identity files the apiserver and controller manager share; created once and kept across restarts. */
export interface PlaneCredentials {
  readonly pkiDir: string;
  /** Bearer token of the admin identity (group system:masters). */
  readonly adminToken: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPub: string;
  readonly tokenFile: string;
}

/**
 * Creates (or reuses) the service-account signing key pair and the admin token. The apiserver's serving
 * certificate is not made here: given only `--cert-dir`, kube-apiserver issues itself a CA and a
 * serving certificate for 127.0.0.1 and localhost, which the kubeconfig then trusts.
 */
export async function ensureCredentials(pkiDir: string): Promise<PlaneCredentials> {
  await mkdir(pkiDir, { recursive: true, mode: 0o700 });
  const serviceAccountKey = join(pkiDir, "sa.key");
  const serviceAccountPub = join(pkiDir, "sa.pub");
  const tokenFile = join(pkiDir, "tokens.csv");
  const adminTokenFile = join(pkiDir, "admin.token");

  if (!existsSync(serviceAccountKey) || !existsSync(serviceAccountPub)) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    await writeFile(serviceAccountKey, privateKey, { mode: 0o600 });
    await writeFile(serviceAccountPub, publicKey, { mode: 0o644 });
  }
  if (!existsSync(adminTokenFile) || !existsSync(tokenFile)) {
    const token = randomBytes(24).toString("hex");
    await writeFile(adminTokenFile, token, { mode: 0o600 });
    // Static token file format: token,user,uid,"group1,group2"
    await writeFile(tokenFile, `${token},navique-admin,navique-admin,"system:masters"\n`, { mode: 0o600 });
  }
  const adminToken = (await readFile(adminTokenFile, "utf8")).trim();
  return { pkiDir, adminToken, serviceAccountKey, serviceAccountPub, tokenFile };
}
