import { releaseMarks } from "../../lib/engine/release-marks.js";

const ours = (uid: string) => ({ apiVersion: "core.navique.com/v1alpha1", kind: "PostgresCluster", name: "p", uid });
const theirs = { apiVersion: "apps/v1", kind: "Deployment", name: "d", uid: "x" };

describe("releaseMarks", () => {
  it.each([
    ["carries no mark", {}, []],
    [
      "keeps the user's labels and annotations, and managed-by naming someone else",
      {
        labels: { app: "db", "app.kubernetes.io/managed-by": "Helm" },
        annotations: { "example.com/note": "x" },
      },
      [],
    ],
    [
      "removes every label and annotation of our group, and managed-by naming the product",
      {
        labels: {
          "core.navique.com/owned-by": "postgrescluster.a.b",
          "core.navique.com/provenance": "owned",
          "app.kubernetes.io/managed-by": "navique-ai-core-operator",
          app: "db",
        },
        annotations: { "core.navique.com/deletion-policy": "Retain", "example.com/note": "x" },
      },
      [
        { op: "remove", path: "/metadata/labels/app.kubernetes.io~1managed-by" },
        { op: "remove", path: "/metadata/labels/core.navique.com~1owned-by" },
        { op: "remove", path: "/metadata/labels/core.navique.com~1provenance" },
        { op: "remove", path: "/metadata/annotations/core.navique.com~1deletion-policy" },
      ],
    ],
    [
      "removes our owner references only, highest position first, each guarded by its uid",
      { ownerReferences: [ours("u-1"), theirs, ours("u-2")] },
      [
        { op: "test", path: "/metadata/ownerReferences/2/uid", value: "u-2" },
        { op: "test", path: "/metadata/ownerReferences/0/uid", value: "u-1" },
        { op: "remove", path: "/metadata/ownerReferences/2" },
        { op: "remove", path: "/metadata/ownerReferences/0" },
      ],
    ],
    [
      "removes the product's managedFields entries only, each guarded by its manager",
      {
        managedFields: [
          { manager: "navique-ai-core-operator", operation: "Apply" },
          { manager: "cloudnative-pg", operation: "Update", subresource: "status" },
          { manager: "navique-ai-core-operator", operation: "Update" },
        ],
      },
      [
        { op: "test", path: "/metadata/managedFields/2/manager", value: "navique-ai-core-operator" },
        { op: "test", path: "/metadata/managedFields/0/manager", value: "navique-ai-core-operator" },
        { op: "remove", path: "/metadata/managedFields/2" },
        { op: "remove", path: "/metadata/managedFields/0" },
      ],
    ],
    [
      "clears managedFields with [{}] when every entry is the product's (an emptied list would be ignored)",
      { managedFields: [{ manager: "navique-ai-core-operator", operation: "Update" }] },
      [
        { op: "test", path: "/metadata/managedFields/0/manager", value: "navique-ai-core-operator" },
        { op: "replace", path: "/metadata/managedFields", value: [{}] },
      ],
    ],
  ])("%s", (_, metadata, patch) => {
    expect(releaseMarks({ metadata })).toEqual(patch);
  });
});
