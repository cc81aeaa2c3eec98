import { CapabilityEntry } from "./capability.js";

/**
 * The ClickHouse Inc. operator (ClickHouse/clickhouse-operator): the operator behind ClickHouseCluster
 * type clickhouse. Every fact is read in its chart as the v0.0.7 release publishes it, dist/chart of commit
 * 24da2d81 (Chart.yaml, values.yaml, templates/), and its release workflow: docs/clickhouse.md (which says
 * how that commit is known to be the tag's), ADR 0036.
 */
export const CLICKHOUSE_OPERATOR = CapabilityEntry.parse({
  name: "clickhouse-operator",
  description: "ClickHouse operator (ClickHouse Inc.); reconciles ClickHouseCluster and KeeperCluster resources.",
  chart: {
    // Published only as an OCI artifact: the release workflow packages dist/chart with the tag's version
    // (`helm package --version 0.0.7 --app-version v0.0.7`) and pushes it to oci://ghcr.io/clickhouse.
    oci: "oci://ghcr.io/clickhouse/clickhouse-operator-helm",
    name: "clickhouse-operator-helm",
    version: "0.0.7",
    appVersion: "v0.0.7",
  },
  // The release name and namespace of the upstream installation guide (docs/install/helm.mdx) and of the
  // release notes the release workflow writes.
  release: { name: "clickhouse-operator", namespace: "clickhouse-operator-system" },
  crds: {
    // templates/crd/, rendered with crd.enabled and kept on uninstall with crd.keep (resource-policy keep).
    names: ["clickhouseclusters.clickhouse.com", "keeperclusters.clickhouse.com"],
    shippedAs: "templates",
  },
  // Chart 0.0.7 with these values (docs/adr/0024-operator-rbac.md, "What the charts render").
  renders: {
    ServiceAccount: ["clickhouse-operator-controller-manager"],
    Service: ["clickhouse-operator-metrics-service", "clickhouse-operator-webhook-service"],
    Deployment: ["clickhouse-operator-controller-manager"],
    ClusterRole: [
      "clickhouse-operator-manager-role",
      "clickhouse-operator-metrics-auth-role",
      "clickhouse-operator-metrics-reader",
    ],
    ClusterRoleBinding: ["clickhouse-operator-manager-rolebinding", "clickhouse-operator-metrics-auth-rolebinding"],
    Role: ["clickhouse-operator-leader-election-role"],
    RoleBinding: ["clickhouse-operator-leader-election-rolebinding"],
    MutatingWebhookConfiguration: ["clickhouse-operator-mutating-webhook-configuration"],
    ValidatingWebhookConfiguration: ["clickhouse-operator-validating-webhook-configuration"],
    Certificate: ["clickhouse-operator-serving-cert", "clickhouse-operator-metrics-certs"],
    Issuer: ["clickhouse-operator-selfsigned-issuer"],
  },
  identity: {
    // The chart's controller Deployment (`<fullname>-controller-manager`) and its pods, and the
    // repository's kustomize manifests (config/manager) alike.
    labels: [{ "app.kubernetes.io/name": "clickhouse-operator", "control-plane": "controller-manager" }],
    images: ["ghcr.io/clickhouse/clickhouse-operator"],
  },
  // The value names of chart 0.0.7 (`enabled`: the chart ignores 0.0.2's `enable`). The image tag is left
  // to the chart, whose template defaults it to the appVersion. The CRDs rendered and kept; the webhooks
  // on, their certificate (and the metrics endpoint's) issued by cert-manager from the Issuer and
  // Certificates the chart renders: hence the prerequisite.
  values: {
    crd: { enabled: true, keep: true },
    certManager: { enabled: true },
    webhook: { enabled: true },
  },
  prerequisites: ["cert-manager"],
});
