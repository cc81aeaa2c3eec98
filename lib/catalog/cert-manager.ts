import { CapabilityEntry } from "./capability.js";

/** cert-manager: the universal prerequisite (webhook certificates of other operators). Every fact is checked against the upstream chart: docs/provenance.md, "Catalog facts". */
export const CERT_MANAGER = CapabilityEntry.parse({
  name: "cert-manager",
  description: "X.509 certificate management; issues webhook certificates for other capability operators.",
  chart: {
    repository: "https://charts.jetstack.io",
    oci: "oci://quay.io/jetstack/charts/cert-manager",
    name: "cert-manager",
    version: "v1.21.1",
    appVersion: "v1.21.1",
  },
  release: { name: "cert-manager", namespace: "cert-manager" },
  crds: {
    names: [
      "certificates.cert-manager.io",
      "certificaterequests.cert-manager.io",
      "issuers.cert-manager.io",
      "clusterissuers.cert-manager.io",
      "orders.acme.cert-manager.io",
      "challenges.acme.cert-manager.io",
    ],
    shippedAs: "templates",
  },
  identity: {
    labels: [{ "app.kubernetes.io/name": "cert-manager", "app.kubernetes.io/component": "controller" }],
    images: ["quay.io/jetstack/cert-manager-controller"],
  },
  // The chart renders its CRDs only when asked, and keeps them on uninstall only when asked.
  values: { crds: { enabled: true, keep: true } },
  prerequisites: [],
});
