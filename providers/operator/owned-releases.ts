import type { KubernetesObject } from "@kubernetes/client-node";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { carriesOwnershipMarks } from "../../lib/capabilities/provenance.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { HELM_NAME_LABEL, HELM_OWNER_LABEL, HELM_STATUS_LABEL } from "../../lib/cluster/helm-release-record.js";

/** Every release record helm keeps (its own label): what a capability's detection reads in its release namespace. */
export const HELM_RECORD_SELECTOR = `${HELM_OWNER_LABEL}=helm`;

/**
 * The release Secrets of the capability releases the product installed: helm's own label (`owner=helm`)
 * and the ownership marks the installer stores on the record (`helm install --labels`). A release someone
 * else installed carries no marks: it is adopted, never reinstalled.
 */
export const OWNED_RELEASE_SELECTOR = [
  HELM_RECORD_SELECTOR,
  ...Object.entries(OWNERSHIP_MARKS).map(([label, value]) => `${label}=${value}`),
].join(",");

/**
 * What the operator watches for the capability releases: one list-watch of helm's records per release
 * namespace of the catalog (HELM_RECORD_SELECTOR: any of them changes what detection decides there).
 */
export interface OwnedReleases {
  /** The namespaces the catalog installs releases in, each once. */
  readonly namespaces: readonly string[];
  /**
   * The capability whose owned release a watch event shows gone: its record, carrying the ownership
   * marks, deleted (`helm uninstall`) or kept as uninstalled (`helm uninstall --keep-history`). Undefined
   * for any other event: the installer's own writes (a new revision, a status moving to deployed) and
   * the records of releases someone else installed concern no one.
   */
  released(object: KubernetesObject, event: string): string | undefined;
  /**
   * The capabilities whose fixed release lives in `namespace`: those whose readiness the Deployments
   * there decide (a controller scaled to 0, deleted, back).
   */
  installedIn(namespace: string): readonly string[];
}

/** The owned releases of a catalog: by `namespace/name` of the fixed release, the capability it installs. */
export function ownedReleases(catalog: ReadonlyMap<string, CapabilityEntry>): OwnedReleases {
  const byRelease = new Map<string, string>();
  const byNamespace = new Map<string, string[]>();
  for (const entry of catalog.values()) {
    const { name, namespace } = entry.release;
    byRelease.set(`${namespace}/${name}`, entry.name);
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), entry.name]);
  }
  const namespaces = [...byNamespace.keys()].sort();
  return {
    namespaces,
    installedIn: (namespace) => byNamespace.get(namespace) ?? [],
    released: (object, event) => {
      const labels = object.metadata?.labels ?? {};
      const gone = event === "delete" || labels[HELM_STATUS_LABEL] === "uninstalled";
      if (!gone || !carriesOwnershipMarks(labels)) return undefined;
      return byRelease.get(`${object.metadata?.namespace ?? ""}/${labels[HELM_NAME_LABEL] ?? ""}`);
    },
  };
}
