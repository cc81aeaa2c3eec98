import { CapabilityEntry } from "./capability.js";

/** CloudNativePG: the operator behind PostgresCluster type cnpg. Every fact is checked against the upstream chart: docs/provenance.md, "Catalog facts". */
export const CLOUDNATIVE_PG = CapabilityEntry.parse({
  name: "cloudnative-pg",
  description: "PostgreSQL operator (CloudNativePG); reconciles Cluster and Database resources.",
  chart: {
    repository: "https://cloudnative-pg.github.io/charts",
    oci: "oci://ghcr.io/cloudnative-pg/charts/cloudnative-pg",
    name: "cloudnative-pg",
    version: "0.29.0",
    appVersion: "1.30.0",
  },
  release: { name: "cloudnative-pg", namespace: "cnpg-system" },
  crds: {
    // Chart 0.29.0 templates/crds/crds.yaml, in its order.
    names: [
      "backups.postgresql.cnpg.io",
      "clusterimagecatalogs.postgresql.cnpg.io",
      "clusters.postgresql.cnpg.io",
      "databaseroles.postgresql.cnpg.io",
      "databases.postgresql.cnpg.io",
      "failoverquorums.postgresql.cnpg.io",
      "imagecatalogs.postgresql.cnpg.io",
      "poolers.postgresql.cnpg.io",
      "publications.postgresql.cnpg.io",
      "scheduledbackups.postgresql.cnpg.io",
      "subscriptions.postgresql.cnpg.io",
    ],
    shippedAs: "templates",
  },
  // Chart 0.29.0 with these values (docs/adr/0024-operator-rbac.md, "What the charts render"). The webhook
  // configurations' names are fixed, whatever the release.
  renders: {
    ServiceAccount: ["cloudnative-pg"],
    ConfigMap: ["cnpg-controller-manager-config", "cnpg-default-monitoring"],
    Service: ["cnpg-webhook-service"],
    Deployment: ["cloudnative-pg"],
    ClusterRole: ["cloudnative-pg", "cloudnative-pg-view", "cloudnative-pg-edit"],
    ClusterRoleBinding: ["cloudnative-pg"],
    MutatingWebhookConfiguration: ["cnpg-mutating-webhook-configuration"],
    ValidatingWebhookConfiguration: ["cnpg-validating-webhook-configuration"],
  },
  identity: {
    labels: [{ "app.kubernetes.io/name": "cloudnative-pg" }],
    images: ["ghcr.io/cloudnative-pg/cloudnative-pg"],
  },
  values: { crds: { create: true } },
  prerequisites: ["cert-manager"],
});
