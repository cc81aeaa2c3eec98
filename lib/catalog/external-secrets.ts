import { CapabilityEntry } from "./capability.js";

/**
 * The External Secrets Operator: the controller behind SecretsManagement backend eso. Every fact is
 * checked against the upstream chart and source at v2.9.0: docs/secrets-management.md, "Upstream facts".
 */
export const EXTERNAL_SECRETS = CapabilityEntry.parse({
  name: "external-secrets",
  description:
    "External Secrets Operator; reconciles SecretStore, ClusterSecretStore and ExternalSecret resources into Secrets.",
  chart: {
    repository: "https://charts.external-secrets.io",
    oci: "oci://ghcr.io/external-secrets/charts/external-secrets",
    name: "external-secrets",
    version: "2.9.0",
    appVersion: "v2.9.0",
  },
  // The release name and namespace of the upstream getting-started guide: Deployments external-secrets,
  // external-secrets-webhook and external-secrets-cert-controller (the fullname is the release name).
  release: { name: "external-secrets", namespace: "external-secrets" },
  crds: {
    // Every CRD chart 2.9.0 renders with its defaults (config/crds/bases, split by hack/helm.generate.sh).
    names: [
      "clusterexternalsecrets.external-secrets.io",
      "clusterpushsecrets.external-secrets.io",
      "clustersecretstores.external-secrets.io",
      "externalsecrets.external-secrets.io",
      "pushsecrets.external-secrets.io",
      "secretstores.external-secrets.io",
      "acraccesstokens.generators.external-secrets.io",
      "beyondtrustworkloadcredentialsdynamicsecrets.generators.external-secrets.io",
      "cloudsmithaccesstokens.generators.external-secrets.io",
      "clustergenerators.generators.external-secrets.io",
      "ecrauthorizationtokens.generators.external-secrets.io",
      "fakes.generators.external-secrets.io",
      "gcraccesstokens.generators.external-secrets.io",
      "generatorstates.generators.external-secrets.io",
      "githubaccesstokens.generators.external-secrets.io",
      "gitlabdeploytokens.generators.external-secrets.io",
      "grafanas.generators.external-secrets.io",
      "mfas.generators.external-secrets.io",
      "passwords.generators.external-secrets.io",
      "quayaccesstokens.generators.external-secrets.io",
      "sshkeys.generators.external-secrets.io",
      "stssessiontokens.generators.external-secrets.io",
      "uuids.generators.external-secrets.io",
      "vaultdynamicsecrets.generators.external-secrets.io",
      "webhooks.generators.external-secrets.io",
    ],
    shippedAs: "templates",
  },
  // Chart 2.9.0 with these values (docs/adr/0024-operator-rbac.md, "What the charts render"): the Secret
  // is the webhook's certificate, which the cert-controller fills. The webhook configurations' names are
  // fixed, whatever the release.
  renders: {
    ServiceAccount: ["external-secrets-cert-controller", "external-secrets", "external-secrets-webhook"],
    Secret: ["external-secrets-webhook"],
    Service: ["external-secrets-webhook"],
    Deployment: ["external-secrets-cert-controller", "external-secrets", "external-secrets-webhook"],
    ClusterRole: [
      "external-secrets-cert-controller",
      "external-secrets-controller",
      "external-secrets-view",
      "external-secrets-edit",
      "external-secrets-servicebindings",
    ],
    ClusterRoleBinding: ["external-secrets-cert-controller", "external-secrets-controller"],
    Role: ["external-secrets-leaderelection"],
    RoleBinding: ["external-secrets-leaderelection"],
    ValidatingWebhookConfiguration: ["secretstore-validate", "externalsecret-validate"],
  },
  identity: {
    // The controller's Deployment (the webhook's and the cert-controller's carry -webhook, -cert-controller).
    labels: [{ "app.kubernetes.io/name": "external-secrets" }],
    images: ["ghcr.io/external-secrets/external-secrets"],
  },
  // The chart renders its CRDs as templates (installCRDs, upstream's default) and annotates them with
  // crds.annotations only: without resource-policy keep, an uninstall would delete every ExternalSecret
  // and SecretStore of the cluster with their CRDs.
  values: { installCRDs: true, crds: { annotations: { "helm.sh/resource-policy": "keep" } } },
  prerequisites: [],
});
