import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import {
  HELM_RECORD_SELECTOR,
  OWNED_RELEASE_SELECTOR,
  ownedReleases,
} from "../../providers/operator/owned-releases.js";

/** A release Secret as helm v4 labels it (pkg/storage/driver/secrets.go), with the product's marks or not. */
function releaseSecret(namespace: string, name: string, status: string, marked = true) {
  return {
    metadata: {
      name: `sh.helm.release.v1.${name}.v1`,
      namespace,
      labels: { owner: "helm", name, status, version: "1", ...(marked ? OWNERSHIP_MARKS : {}) },
    },
  };
}

describe("the owned capability releases the operator watches", () => {
  const releases = ownedReleases(CATALOG);

  it("are helm's records (its owner label) in each release namespace once; the owned ones carry the product's marks", () => {
    expect(HELM_RECORD_SELECTOR).toBe("owner=helm");
    expect(OWNED_RELEASE_SELECTOR).toBe(
      "owner=helm,app.kubernetes.io/managed-by=navique-ai-core-operator,core.navique.com/provenance=owned",
    );
    const namespaces = [...new Set([...CATALOG.values()].map((e) => e.release.namespace))].sort();
    expect(releases.namespaces).toEqual(namespaces);
    expect(releases.namespaces).toContain("cnpg-system");
  });

  it("name the capability whose release was uninstalled, with or without its history kept", () => {
    for (const entry of CATALOG.values()) {
      const { namespace, name } = entry.release;
      expect(releases.released(releaseSecret(namespace, name, "deployed"), "delete")).toBe(entry.name);
      expect(releases.released(releaseSecret(namespace, name, "uninstalled"), "update")).toBe(entry.name);
    }
  });

  it("name none for the installer's own writes, nor for a release of another name or namespace", () => {
    const { namespace, name } = [...CATALOG.values()][0]?.release ?? { namespace: "", name: "" };
    expect(releases.released(releaseSecret(namespace, name, "pending-install"), "add")).toBeUndefined();
    expect(releases.released(releaseSecret(namespace, name, "deployed"), "update")).toBeUndefined();
    expect(releases.released(releaseSecret(namespace, "someone-elses", "deployed"), "delete")).toBeUndefined();
    expect(releases.released(releaseSecret("elsewhere", name, "deployed"), "delete")).toBeUndefined();
    // A release someone else installed (no marks), uninstalled: adopted before, never reinstalled.
    expect(releases.released(releaseSecret(namespace, name, "deployed", false), "delete")).toBeUndefined();
    expect(releases.released(releaseSecret(namespace, name, "uninstalled", false), "update")).toBeUndefined();
  });

  it("name the capabilities installed in a release namespace, whose controllers its Deployments are", () => {
    expect(releases.installedIn("ot-operators")).toEqual(["redis-operator"]);
    for (const namespace of releases.namespaces) {
      const installed = [...CATALOG.values()].filter((e) => e.release.namespace === namespace).map((e) => e.name);
      expect(releases.installedIn(namespace)).toEqual(installed);
    }
    expect(releases.installedIn("default")).toEqual([]);
  });
});
