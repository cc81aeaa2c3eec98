import { CapabilityEntry } from "./capability.js";

/** The OT-CONTAINER-KIT Redis operator: the operator behind RedisInstance type redis. Every fact is checked against the upstream chart and source: docs/redis.md. */
export const REDIS_OPERATOR = CapabilityEntry.parse({
  name: "redis-operator",
  description: "Redis operator (OT-CONTAINER-KIT); reconciles Redis, RedisReplication and RedisSentinel resources.",
  chart: {
    repository: "https://ot-container-kit.github.io/helm-charts",
    oci: "oci://ghcr.io/ot-container-kit/charts/redis-operator",
    name: "redis-operator",
    version: "0.26.1",
    appVersion: "0.26.0",
  },
  // The release name and namespace of the upstream installation guide.
  release: { name: "redis-operator", namespace: "ot-operators" },
  crds: {
    // Chart 0.26.1 crds/crds.yaml, in its order. Helm creates them when missing and never upgrades them.
    names: [
      "redis.redis.redis.opstreelabs.in",
      "redisclusters.redis.redis.opstreelabs.in",
      "redisreplications.redis.redis.opstreelabs.in",
      "redissentinels.redis.redis.opstreelabs.in",
    ],
    shippedAs: "crds-directory",
  },
  // Chart 0.26.1 with these values (docs/adr/0024-operator-rbac.md, "What the charts render").
  renders: {
    ServiceAccount: ["redis-operator"],
    Deployment: ["redis-operator"],
    ClusterRole: ["redis-operator"],
    ClusterRoleBinding: ["redis-operator"],
  },
  identity: {
    labels: [
      // The chart's Deployment (its pods carry only `name: redis-operator`).
      { "app.kubernetes.io/name": "redis-operator" },
      // The repository's own manifests (config/manager), installed with kustomize.
      { "control-plane": "redis-operator" },
    ],
    images: ["quay.io/opstree/redis-operator", "ghcr.io/ot-container-kit/redis-operator/redis-operator"],
  },
  // The chart's defaults, pinned: the pod webhook (failurePolicy Fail on every Redis pod) stays off, and
  // with it the cert-manager Certificate the chart would otherwise ask for.
  values: { redisOperator: { webhook: false }, certmanager: { enabled: false } },
  prerequisites: [],
});
