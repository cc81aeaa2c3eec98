import type { ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EventsV1Api, type KubeConfig, type KubernetesObject, Watch } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { LICENSE_KIND, LICENSE_NAME, LICENSE_PLURAL } from "../../lib/kinds/license/schema.js";
import { signLicense } from "../../lib/licence/token.js";

/**
 * A vendor key of its own: its id, the licence it signs and the `--trust ID=PUBFILE` an operator takes to
 * trust it. Two of them make two operators disagree on the License, as a rolling update that adds a key.
 */
export async function vendorKey(
  dir: string,
  keyId: string,
): Promise<{ readonly trustArgs: readonly string[]; readonly licence: (caps: Record<string, number>) => string }> {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const publicFile = join(dir, `${keyId}.pub`);
  await writeFile(publicFile, publicKey);
  return {
    trustArgs: ["--trust", `${keyId}=${publicFile}`],
    licence: (caps) =>
      signLicense(
        {
          licenseId: `lic-${keyId}`,
          licensee: "navique failover",
          issuedAt: "2026-01-01T00:00:00Z",
          notBefore: "2026-01-01T00:00:00Z",
          expiresAt: "2099-01-01T00:00:00Z",
          features: [],
          caps,
        },
        privateKey,
        keyId,
      ),
  };
}

/** The License's writes (each resourceVersion the watch sees after its start) and the Events about it. */
export interface LicenceWrites {
  readonly writes: number;
  readonly events: number;
}

/**
 * Counts, for `ms`, the License's writes (MODIFIED on a watch of the singleton) and the Events written about
 * it (ADDED or MODIFIED on a watch of the cluster Events' namespace, an aggregated Event counting once per
 * write): what two operators that disagree write while they do.
 */
export async function countLicenceWrites(config: KubeConfig, ms: number): Promise<LicenceWrites> {
  const watch = new Watch(config);
  let writes = 0;
  let events = 0;
  const licence = await watch.watch(
    `/apis/${API_GROUP}/${API_VERSION}/${LICENSE_PLURAL}`,
    { fieldSelector: `metadata.name=${LICENSE_NAME}` },
    (type) => {
      if (type === "MODIFIED") writes++;
    },
    () => undefined,
  );
  // Watched from the list's resourceVersion: only Events written from now on count, not those that exist.
  const existing = await config.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: "default", limit: 1 });
  const about = await watch.watch(
    "/apis/events.k8s.io/v1/namespaces/default/events",
    { resourceVersion: existing.metadata?.resourceVersion },
    (type, object: KubernetesObject & { regarding?: { kind?: string } }) => {
      if (object.regarding?.kind === LICENSE_KIND && (type === "ADDED" || type === "MODIFIED")) events++;
    },
    () => undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  licence.abort();
  about.abort();
  return { writes, events };
}

/** Resolves once the process's output contains `text`; rejects when it exits first or after `timeoutMs`. */
export function outputContains(
  child: ChildProcess,
  output: () => string,
  text: string | RegExp,
  timeoutMs = 60_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const found = () => (typeof text === "string" ? output().includes(text) : text.test(output()));
    const timer = setInterval(() => {
      if (found()) {
        done();
        resolve();
      } else if (child.exitCode !== null || child.signalCode !== null) {
        done();
        reject(new Error(`the operator exited before saying ${text}:\n${output()}`));
      }
    }, 50);
    const limit = setTimeout(() => {
      done();
      reject(new Error(`the operator did not say ${text} within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const done = () => {
      clearInterval(timer);
      clearTimeout(limit);
    };
  });
}

/** Kills a process started detached, and its children, with SIGKILL; resolves once it exited. */
export async function killGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.pid) process.kill(-child.pid, "SIGKILL");
  await exited;
}
