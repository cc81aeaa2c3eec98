import { gunzipSync } from "node:zlib";
import type { V1Secret } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import type { ReleaseRecord, ReleaseWorkload } from "./release-record.js";

/** Labels helm itself puts on every release Secret. */
export const HELM_OWNER_LABEL = "owner";
export const HELM_NAME_LABEL = "name";
export const HELM_VERSION_LABEL = "version";
export const HELM_STATUS_LABEL = "status";
export const HELM_RELEASE_SECRET_TYPE = "helm.sh/release.v1";

/**
 * How helm marks an object as part of a release, and the only thing it checks before making an existing
 * object part of one (helm v4 pkg/action/validate.go, checkOwnership): this label, and both annotations
 * naming the release. `--take-ownership` skips the check for every object the chart renders.
 */
export const HELM_MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const HELM_MANAGED_BY = "Helm";
export const HELM_RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name";
export const HELM_RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace";

interface EncodedRelease {
  name?: string;
  namespace?: string;
  version?: number;
  info?: { status?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
  manifest?: string;
  /** The values given to the install or upgrade (helm's `config`), not merged with the chart's defaults. */
  config?: Record<string, unknown>;
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

/** The kinds whose readiness a release's readiness depends on; every other document is skipped unparsed. */
const WORKLOAD_DOCUMENT = /^kind:\s*["']?(Deployment|StatefulSet)["']?\s*$/m;

/**
 * The Deployments and StatefulSets of a manifest. A real operator's manifest is mostly CRD schemas
 * (~1.3 MB for cloudnative-pg): documents are split on helm's `---` separators and only those whose
 * top-level kind is a workload are parsed.
 */
function workloadsOf(manifest: string, releaseNamespace: string): ReleaseWorkload[] {
  const workloads: ReleaseWorkload[] = [];
  for (const text of manifest.split(/^---\s*$/m)) {
    if (!WORKLOAD_DOCUMENT.test(text)) continue;
    for (const document of parseAllDocuments(text)) {
      const object = document.toJS() as {
        kind?: string;
        metadata?: { name?: string; namespace?: string };
        spec?: { replicas?: unknown };
      } | null;
      if (!object || (object.kind !== "Deployment" && object.kind !== "StatefulSet") || !object.metadata?.name)
        continue;
      const replicas = object.spec?.replicas;
      workloads.push({
        kind: object.kind,
        name: object.metadata.name,
        namespace: object.metadata.namespace ?? releaseNamespace,
        ...(typeof replicas === "number" ? { declaredReplicas: replicas } : {}),
      });
    }
  }
  return workloads;
}

function decode(secret: V1Secret): ReleaseRecord {
  const labels = secret.metadata?.labels ?? {};
  const namespace = secret.metadata?.namespace ?? "";
  const payload = decodePayload(secret);
  const metadata = payload.chart?.metadata;
  return {
    name: labels[HELM_NAME_LABEL] ?? payload.name ?? "",
    namespace,
    revision: Number.parseInt(labels[HELM_VERSION_LABEL] ?? String(payload.version ?? 0), 10),
    status: labels[HELM_STATUS_LABEL] ?? payload.info?.status ?? "unknown",
    labels,
    ...(metadata ? { chart: { name: metadata.name, version: metadata.version, appVersion: metadata.appVersion } } : {}),
    workloads: workloadsOf(payload.manifest ?? "", namespace),
    values: payload.config ?? {},
  };
}

/**
 * Decoded records by Secret uid and resourceVersion: a stored revision changes only with a new
 * resourceVersion, and detection repeats every few seconds while a capability becomes Ready.
 */
const decoded = new Map<string, ReleaseRecord>();
const DECODED_KEPT = 64;

function cacheKey(secret: V1Secret): string | undefined {
  const { uid, resourceVersion } = secret.metadata ?? {};
  return uid && resourceVersion ? `${uid}/${resourceVersion}` : undefined;
}

/** The record already decoded from this Secret at this resourceVersion; its metadata alone is enough to ask. */
export function cachedReleaseRecord(secret: V1Secret): ReleaseRecord | undefined {
  const key = cacheKey(secret);
  return key ? decoded.get(key) : undefined;
}

/** Decodes one release Secret; labels are trusted for name, revision and status, the payload for the rest. */
export function decodeReleaseSecret(secret: V1Secret): ReleaseRecord {
  const cached = cachedReleaseRecord(secret);
  if (cached) return cached;
  const record = decode(secret);
  const key = cacheKey(secret);
  if (key) {
    if (decoded.size >= DECODED_KEPT) decoded.delete(decoded.keys().next().value ?? "");
    decoded.set(key, record);
  }
  return record;
}

/** A release Secret's revision, from the `version` label helm v4 puts on it (pkg/storage/driver/secrets.go). */
function labelledRevision(secret: V1Secret): number {
  const revision = Number.parseInt(secret.metadata?.labels?.[HELM_VERSION_LABEL] ?? "", 10);
  return Number.isNaN(revision) ? -1 : revision;
}

/**
 * The latest revision among a release's Secrets (helm keeps one per revision), chosen by their labels:
 * the Secrets may be metadata only, and the older revisions' payloads are never needed.
 */
export function latestReleaseSecret(secrets: readonly V1Secret[]): V1Secret | undefined {
  return secrets.reduce<V1Secret | undefined>(
    (best, secret) => (!best || labelledRevision(secret) > labelledRevision(best) ? secret : best),
    undefined,
  );
}
