import {
  decideReleaseOwnership,
  type ExistingObject,
  ownershipConflictMessage,
} from "../../lib/capabilities/release-ownership.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";

const OURS = {
  labels: { "app.kubernetes.io/managed-by": "Helm" },
  annotations: { "meta.helm.sh/release-name": "cloudnative-pg", "meta.helm.sh/release-namespace": "cnpg-system" },
};
const crd = (name: string) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name },
});
const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cnpg-controller-manager-config", namespace: "cnpg-system" },
};
const foreign = (live: boolean) => ({
  labels: { "app.kubernetes.io/managed-by": "Helm" },
  annotations: { "meta.helm.sh/release-name": "my-cnpg", "meta.helm.sh/release-namespace": "databases" },
  holder: { release: "my-cnpg", namespace: "databases", live },
});

describe("which existing objects an install may make its own", () => {
  it.each<[string, ExistingObject, "ok" | "orphan" | string]>([
    ["an object of this release", { object: configMap, ...OURS }, "ok"],
    ["a CRD of the catalog left by our earlier release", { object: crd("clusters.postgresql.cnpg.io"), ...OURS }, "ok"],
    [
      "a CRD of the catalog applied by hand",
      { object: crd("clusters.postgresql.cnpg.io"), labels: {}, annotations: {} },
      "orphan",
    ],
    [
      "a CRD of the catalog whose release was uninstalled",
      { object: crd("poolers.postgresql.cnpg.io"), ...foreign(false) },
      "orphan",
    ],
    [
      "a CRD of the catalog held by another live release",
      { object: crd("poolers.postgresql.cnpg.io"), ...foreign(true) },
      "belongs to helm release databases/my-cnpg",
    ],
    [
      "a CRD the catalog does not list",
      { object: crd("widgets.example.com"), labels: {}, annotations: {} },
      "exists and was not installed by helm",
    ],
    [
      "a user's ConfigMap",
      { object: configMap, labels: { team: "db" }, annotations: {} },
      "exists and was not installed by helm",
    ],
    [
      "a ConfigMap of another release, even an uninstalled one",
      { object: configMap, ...foreign(false) },
      "belongs to helm release databases/my-cnpg",
    ],
  ])("%s", (_, existing, expected) => {
    const verdict = decideReleaseOwnership(CLOUDNATIVE_PG, [existing]);
    if (expected === "ok") expect(verdict).toEqual({ conflicts: [], orphanedCrds: [] });
    else if (expected === "orphan") expect(verdict).toEqual({ conflicts: [], orphanedCrds: [existing.object] });
    else expect(verdict).toEqual({ conflicts: [{ object: existing.object, why: expected }], orphanedCrds: [] });
  });

  it("names every conflicting object and what to do", () => {
    const verdict = decideReleaseOwnership(CLOUDNATIVE_PG, [
      { object: configMap, labels: {}, annotations: {} },
      { object: crd("widgets.example.com"), ...foreign(true) },
    ]);
    expect(ownershipConflictMessage(CLOUDNATIVE_PG, verdict)).toBe(
      "installing cloudnative-pg 0.29.0 as release cnpg-system/cloudnative-pg would take over 2 objects that are not its own: " +
        "ConfigMap cnpg-system/cnpg-controller-manager-config (exists and was not installed by helm), " +
        "CustomResourceDefinition widgets.example.com (belongs to helm release databases/my-cnpg). Nothing was installed. " +
        "Delete or rename them, or install cloudnative-pg yourself (the product then adopts it and never changes it)",
    );
    expect(
      ownershipConflictMessage(CLOUDNATIVE_PG, {
        conflicts: [verdict.conflicts[0] ?? { object: configMap, why: "" }],
        orphanedCrds: [],
      }),
    ).toContain("would take over an object that is not its own: ConfigMap");
  });
});
