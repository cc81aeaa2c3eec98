/**
 * Two PostgreSQL datastores for the platform:
 * - `platform-db`, managed: CloudNativePG (and cert-manager before it) installed when absent, a CNPG
 *   Cluster with one database per consumer, generated credentials;
 * - `chat-db`, adopted: the CNPG Cluster `shared` that already runs in `navique-example-data` (with its
 *   credentials in Secret `shared-app` there) gets a `librechat` database, never touched otherwise. That
 *   namespace must grant it with a ReferenceGrant (docs/reference-grants.md); `pulumi preview` says which.
 *
 * Run from the repository root (Pulumi.yaml there points here) in the environment of
 * test/support/typescript-sources.ts (the sources compiled by tsx, the runtime resolved by package name);
 * KUBECONFIG chooses the cluster, NAVIQUE_CHART_SOURCE where charts come from (official by default).
 */
import { PostgresCluster } from "../../providers/pulumi/index.js";

const chartSource = process.env.NAVIQUE_CHART_SOURCE;

const platformDb = new PostgresCluster("platform-db", {
  namespace: "navique-example-platform",
  spec: { databases: [{ name: "litellm" }, { name: "langfuse" }] },
  ...(chartSource ? { chartSource } : {}),
});

const chatDb = new PostgresCluster("chat-db", {
  namespace: "navique-example-apps",
  spec: {
    mode: "adopt",
    adopt: {
      clusterRef: { name: "shared", namespace: "navique-example-data" },
      credentialsSecretRef: { name: "shared-app", namespace: "navique-example-data" },
    },
    databases: [{ name: "librechat" }],
  },
  ...(chartSource ? { chartSource } : {}),
});

export const platformHost = platformDb.host;
export const platformPassword = platformDb.password;
export const platformCapabilities = platformDb.capabilities;
export const chatHost = chatDb.host;
export const chatProvenance = chatDb.provenance;
