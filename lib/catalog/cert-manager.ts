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
  // Chart v1.21.1 with these values (docs/adr/0024-operator-rbac.md, "What the charts render"); the
  // startupapicheck ServiceAccount, Role, RoleBinding and Job are its post-install hook.
  renders: {
    ServiceAccount: ["cert-manager-cainjector", "cert-manager", "cert-manager-webhook", "cert-manager-startupapicheck"],
    Service: ["cert-manager-cainjector", "cert-manager", "cert-manager-webhook"],
    Deployment: ["cert-manager-cainjector", "cert-manager", "cert-manager-webhook"],
    Job: ["cert-manager-startupapicheck"],
    ClusterRole: [
      "cert-manager-cainjector",
      "cert-manager-controller-issuers",
      "cert-manager-controller-clusterissuers",
      "cert-manager-controller-certificates",
      "cert-manager-controller-orders",
      "cert-manager-controller-challenges",
      "cert-manager-controller-ingress-shim",
      "cert-manager-cluster-view",
      "cert-manager-view",
      "cert-manager-edit",
      "cert-manager-controller-approve:cert-manager-io",
      "cert-manager-controller-certificatesigningrequests",
      "cert-manager-webhook:subjectaccessreviews",
    ],
    ClusterRoleBinding: [
      "cert-manager-cainjector",
      "cert-manager-controller-issuers",
      "cert-manager-controller-clusterissuers",
      "cert-manager-controller-certificates",
      "cert-manager-controller-orders",
      "cert-manager-controller-challenges",
      "cert-manager-controller-ingress-shim",
      "cert-manager-controller-approve:cert-manager-io",
      "cert-manager-controller-certificatesigningrequests",
      "cert-manager-webhook:subjectaccessreviews",
    ],
    // The two leader-election Roles and their bindings are in kube-system (value global.leaderElection.namespace).
    Role: [
      "cert-manager-cainjector:leaderelection",
      "cert-manager:leaderelection",
      "cert-manager-webhook:dynamic-serving",
      "cert-manager-startupapicheck:create-cert",
    ],
    RoleBinding: [
      "cert-manager-cainjector:leaderelection",
      "cert-manager:leaderelection",
      "cert-manager-webhook:dynamic-serving",
      "cert-manager-startupapicheck:create-cert",
    ],
    MutatingWebhookConfiguration: ["cert-manager-webhook"],
    ValidatingWebhookConfiguration: ["cert-manager-webhook"],
  },
  identity: {
    labels: [{ "app.kubernetes.io/name": "cert-manager", "app.kubernetes.io/component": "controller" }],
    images: ["quay.io/jetstack/cert-manager-controller"],
  },
  // The chart renders its CRDs only when asked, and keeps them on uninstall only when asked.
  values: { crds: { enabled: true, keep: true } },
  prerequisites: [],
});
