import { CapabilityEntry } from "./capability.js";

/** CloudNativePG: the operator behind PostgresCluster type cnpg. Facts: CATALOG.md. */
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
    names: [
      "clusters.postgresql.cnpg.io",
      "databases.postgresql.cnpg.io",
      "poolers.postgresql.cnpg.io",
      "backups.postgresql.cnpg.io",
      "scheduledbackups.postgresql.cnpg.io",
    ],
    shippedAs: "templates",
  },
  identity: {
    labels: [{ "app.kubernetes.io/name": "cloudnative-pg" }],
    images: ["ghcr.io/cloudnative-pg/cloudnative-pg"],
  },
  values: { crds: { create: true } },
  prerequisites: ["cert-manager"],
});
