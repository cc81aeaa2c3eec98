import { gunzipSync } from "node:zlib";
import type { V1Secret } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

/** Labels helm itself puts on every release Secret. */
export const HELM_OWNER_LABEL = "owner";
export const HELM_NAME_LABEL = "name";
export const HELM_RELEASE_SECRET_TYPE = "helm.sh/release.v1";

/** A workload the release's manifest declares, whose readiness the release's readiness depends on. */
export interface ReleaseWorkload {
  readonly kind: "Deployment" | "StatefulSet";
  readonly name: string;
  readonly namespace: string;
}

/** What the product reads from one revision of a Helm release record. */
export interface ReleaseRecord {
  readonly name: string;
  readonly namespace: string;
  readonly revision: number;
  readonly status: string;
  /** Labels of the release Secret: helm's own plus any given with `--labels` (ownership marks). */
  readonly labels: Readonly<Record<string, string>>;
  readonly chart?: { readonly name?: string; readonly version?: string; readonly appVersion?: string };
  readonly workloads: readonly ReleaseWorkload[];
}

interface EncodedRelease {
  name?: string;
  namespace?: string;
  version?: number;
  info?: { status?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
  manifest?: string;
}

/** The release payload: the Secret's `release` key holds base64(gzip(JSON)), base64-encoded once more by the API. */
function decodePayload(secret: V1Secret): EncodedRelease {
  const data = secret.data?.release;
  if (!data) return {};
  const helmEncoded = Buffer.from(data, "base64").toString("utf8");
  const compressed = Buffer.from(helmEncoded, "base64");
  // gzip magic bytes; very old helm versions stored plain JSON.
  const json =
    compressed[0] === 0x1f && compressed[1] === 0x8b
      ? gunzipSync(compressed).toString("utf8")
      : compressed.toString("utf8");
  return JSON.parse(json) as EncodedRelease;
}

function workloadsOf(manifest: string, releaseNamespace: string): ReleaseWorkload[] {
  const workloads: ReleaseWorkload[] = [];
  for (const document of parseAllDocuments(manifest)) {
    const object = document.toJS() as { kind?: string; metadata?: { name?: string; namespace?: string } } | null;
    if (!object || (object.kind !== "Deployment" && object.kind !== "StatefulSet") || !object.metadata?.name) continue;
    workloads.push({
      kind: object.kind,
      name: object.metadata.name,
      namespace: object.metadata.namespace ?? releaseNamespace,
    });
  }
  return workloads;
}

/** Decodes one release Secret; labels are trusted for name, revision and status, the payload for the rest. */
export function decodeReleaseSecret(secret: V1Secret): ReleaseRecord {
  const labels = secret.metadata?.labels ?? {};
  const namespace = secret.metadata?.namespace ?? "";
  const payload = decodePayload(secret);
  const metadata = payload.chart?.metadata;
  return {
    name: labels[HELM_NAME_LABEL] ?? payload.name ?? "",
    namespace,
    revision: Number.parseInt(labels.version ?? String(payload.version ?? 0), 10),
    status: labels.status ?? payload.info?.status ?? "unknown",
    labels,
    ...(metadata ? { chart: { name: metadata.name, version: metadata.version, appVersion: metadata.appVersion } } : {}),
    workloads: workloadsOf(payload.manifest ?? "", namespace),
  };
}

/** The latest revision among a release's records (helm keeps one Secret per revision). */
export function latestRevision(records: readonly ReleaseRecord[]): ReleaseRecord | undefined {
  return records.reduce<ReleaseRecord | undefined>(
    (latest, record) => (!latest || record.revision > latest.revision ? record : latest),
    undefined,
  );
}
