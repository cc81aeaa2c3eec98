import { CapabilityEntry } from "./capability.js";

/**
 * The MongoDB Controllers for Kubernetes (MCK): the operator behind MongoCluster type community, successor
 * of the deprecated MongoDB Community Operator (docs/adr/0035-mongodb-controllers.md). Every fact is read in
 * its chart 1.9.1 (helm_chart/ at tag 1.9.1 of mongodb/mongodb-kubernetes, identical to
 * charts/mongodb-kubernetes of mongodb/helm-charts) and the operator's source at that tag: docs/mongodb.md.
 */
export const MONGODB_KUBERNETES = CapabilityEntry.parse({
  name: "mongodb-kubernetes",
  description:
    "MongoDB Controllers for Kubernetes (MCK); reconciles MongoDBCommunity replica sets (and MongoDB Enterprise kinds, unused here).",
  chart: {
    repository: "https://mongodb.github.io/helm-charts",
    oci: "oci://quay.io/mongodb/helm-charts/mongodb-kubernetes",
    name: "mongodb-kubernetes",
    // The chart has no appVersion: the operator's version is its value operator.version (1.9.1).
    version: "1.9.1",
    // The repository index's digest of mongodb-kubernetes-1.9.1.tgz (gh-pages index.yaml).
    digest: "sha256:3333d3ec37d6b34dfd2bb59ec8fbc7a5da3d1a67d6cd36f1a3da39846b0417d1",
  },
  // The release name of upstream's migration guide (docs/migration/community-operator-migration.md) and the
  // namespace of its rendered manifests (public/mongodb-kubernetes.yaml).
  release: { name: "mongodb-kubernetes-operator", namespace: "mongodb" },
  crds: {
    // Chart 1.9.1 crds/, one file each. Helm creates them when missing and never upgrades them.
    names: [
      "voyageais.ai.mongodb.com",
      "clustermongodbroles.mongodb.com",
      "mongodb.mongodb.com",
      "mongodbmulticluster.mongodb.com",
      "mongodbsearch.mongodb.com",
      "mongodbusers.mongodb.com",
      "opsmanagers.mongodb.com",
      "mongodbcommunity.mongodbcommunity.mongodb.com",
    ],
    shippedAs: "crds-directory",
  },
  // Chart 1.9.1 with these values (docs/adr/0024-operator-rbac.md, "What the charts render"): the
  // operator's RoleBindings in its namespace bind its ClusterRoles there.
  renders: {
    ServiceAccount: [
      "mongodb-kubernetes-appdb",
      "mongodb-kubernetes-database-pods",
      "mongodb-kubernetes-ops-manager",
      "mongodb-kubernetes-operator",
    ],
    Deployment: ["mongodb-kubernetes-operator"],
    ClusterRole: [
      "mongodb-kubernetes-operator",
      "mongodb-kubernetes-operator-pvc-resize",
      "mongodb-kubernetes-operator-mongodb-webhook-cr",
    ],
    ClusterRoleBinding: [
      "mongodb-kubernetes-operator",
      "mongodb-kubernetes-operator-pvc-resize-binding",
      "mongodb-kubernetes-operator-mongodb-webhook-crb",
    ],
    Role: ["mongodb-kubernetes-appdb"],
    RoleBinding: [
      "mongodb-kubernetes-appdb",
      "mongodb-kubernetes-operator",
      "mongodb-kubernetes-operator-pvc-resize-binding",
    ],
  },
  identity: {
    // The labels of the controller's pods (templates/operator.yaml). The chart's Deployment, and upstream's
    // rendered manifests, carry no label of their own: their controller is recognised by its image.
    labels: [{ "app.kubernetes.io/name": "mongodb-kubernetes-operator", "app.kubernetes.io/component": "controller" }],
    images: ["quay.io/mongodb/mongodb-kubernetes"],
  },
  values: {
    operator: {
      // One controller for the whole cluster: a MongoCluster may be in any namespace. Its database pods run
      // as the service account each MongoCluster brings (the chart makes its own only in its namespace).
      watchNamespace: "*",
      // Only the kind the product emits; ClusterMongoDBRole serves the Enterprise kinds alone.
      watchedResources: ["mongodbcommunity"],
      enableClusterMongoDBRoles: false,
      // Upstream's default sends usage data to MongoDB weekly: off, for air-gapped clusters and consent.
      telemetry: { enabled: false },
    },
  },
  prerequisites: [],
});
