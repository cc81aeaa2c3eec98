import { CapabilityEntry } from "./capability.js";

/**
 * The ClickHouse Inc. operator (ClickHouse/clickhouse-operator): the operator behind ClickHouseCluster
 * type clickhouse. Every fact is read in its chart as tag v0.0.2 (commit 37be571c) publishes it, dist/chart
 * (Chart.yaml, values.yaml, templates/), and its release workflow: docs/clickhouse.md, ADR 0036.
 */
export const CLICKHOUSE_OPERATOR = CapabilityEntry.parse({
  name: "clickhouse-operator",
  description: "ClickHouse operator (ClickHouse Inc.); reconciles ClickHouseCluster and KeeperCluster resources.",
  chart: {
    // Published only as an OCI artifact: the release workflow packages dist/chart with the tag's version
    // (`helm package --version 0.0.2 --app-version v0.0.2`) and pushes it to oci://ghcr.io/clickhouse.
    oci: "oci://ghcr.io/clickhouse/clickhouse-operator-helm",
    name: "clickhouse-operator-helm",
    version: "0.0.2",
    appVersion: "v0.0.2",
  },
  // The release name and namespace of the upstream installation guide (docs/install/helm).
  release: { name: "clickhouse-operator", namespace: "clickhouse-operator-system" },
  crds: {
    // templates/crd/, rendered with crd.enable and kept on uninstall with crd.keep (resource-policy keep).
    names: ["clickhouseclusters.clickhouse.com", "keeperclusters.clickhouse.com"],
    shippedAs: "templates",
  },
  identity: {
    // The chart's controller Deployment (`<fullname>-controller-manager`) and its pods, and the
    // repository's kustomize manifests (config/manager) alike.
    labels: [{ "app.kubernetes.io/name": "clickhouse-operator", "control-plane": "controller-manager" }],
    images: ["ghcr.io/clickhouse/clickhouse-operator"],
  },
  // The value names of chart 0.0.2 (`enable`; 0.0.6 renamed them `enabled` and ignores the old ones: a new
  // pin must rename them). The image tag always: chart 0.0.2's values.yaml hard-codes v0.0.1 and its
  // template uses the value as it is. The CRDs rendered and kept; the webhooks on, their certificate
  // issued by cert-manager from the Issuer and Certificate the chart renders: hence the prerequisite.
  values: {
    manager: { image: { tag: "v0.0.2" } },
    crd: { enable: true, keep: true },
    certManager: { enable: true, install: false },
    webhook: { enable: true },
  },
  prerequisites: ["cert-manager"],
});
