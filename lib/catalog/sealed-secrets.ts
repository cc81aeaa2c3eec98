import { CapabilityEntry } from "./capability.js";

/**
 * The Sealed Secrets controller: what SecretsManagement backend sealed-secrets needs. Every fact is checked
 * against the upstream chart 2.18.5 and source 0.36.6: docs/secrets-management.md, "Upstream facts".
 */
export const SEALED_SECRETS = CapabilityEntry.parse({
  name: "sealed-secrets",
  description: "Sealed Secrets controller; decrypts SealedSecret resources into Secrets.",
  chart: {
    repository: "https://bitnami-labs.github.io/sealed-secrets",
    name: "sealed-secrets",
    version: "2.18.5",
    appVersion: "0.36.6",
  },
  // Where kubeseal looks by default (--controller-namespace kube-system): the upstream README's install
  // with fullnameOverride sealed-secrets-controller (--controller-name's default), set in `values`.
  release: { name: "sealed-secrets", namespace: "kube-system" },
  crds: { names: ["sealedsecrets.bitnami.com"], shippedAs: "crds-directory" },
  // Chart 2.18.5 with these values (docs/adr/0024-operator-rbac.md, "What the charts render"): its
  // ClusterRole's name is fixed, whatever the release.
  renders: {
    ServiceAccount: ["sealed-secrets-controller"],
    Service: ["sealed-secrets-controller", "sealed-secrets-controller-metrics"],
    Deployment: ["sealed-secrets-controller"],
    ClusterRole: ["secrets-unsealer"],
    ClusterRoleBinding: ["sealed-secrets-controller"],
    Role: ["sealed-secrets-controller-key-admin", "sealed-secrets-controller-service-proxier"],
    RoleBinding: ["sealed-secrets-controller-key-admin", "sealed-secrets-controller-service-proxier"],
  },
  identity: {
    labels: [{ "app.kubernetes.io/name": "sealed-secrets" }],
    images: ["docker.io/bitnami/sealed-secrets-controller"],
  },
  values: { fullnameOverride: "sealed-secrets-controller" },
  prerequisites: [],
});
