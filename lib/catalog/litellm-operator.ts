import { CapabilityEntry } from "./capability.js";

/**
 * The LiteLLM operator (PalenaAI/litellm-operator): the operator behind Gateway. Every fact is read in its
 * chart 0.23.0 (deploy/charts/litellm-operator) and its CRDs and controller source: docs/gateway.md.
 */
export const LITELLM_OPERATOR = CapabilityEntry.parse({
  name: "litellm-operator",
  description: "LiteLLM operator (PalenaAI); reconciles LiteLLMInstance, LiteLLMModel and the proxy's other resources.",
  chart: {
    // Published only as an OCI artifact (its release workflow pushes to ghcr.io/<owner>/charts).
    oci: "oci://ghcr.io/palenaai/charts/litellm-operator",
    name: "litellm-operator",
    version: "0.23.0",
    appVersion: "0.23.0",
  },
  // Upstream's guide installs release litellm-operator into the current namespace; the product gives it
  // a namespace of its own.
  release: { name: "litellm-operator", namespace: "litellm-operator-system" },
  crds: {
    // Chart 0.23.0 crds/, one file each. Helm creates them when missing and never upgrades them.
    names: [
      "litellmbudgets.litellm.palena.ai",
      "litellmcredentials.litellm.palena.ai",
      "litellmcustomers.litellm.palena.ai",
      "litellmguardrails.litellm.palena.ai",
      "litellminstances.litellm.palena.ai",
      "litellmmodels.litellm.palena.ai",
      "litellmorganizations.litellm.palena.ai",
      "litellmteams.litellm.palena.ai",
      "litellmusers.litellm.palena.ai",
      "litellmvirtualkeys.litellm.palena.ai",
    ],
    shippedAs: "crds-directory",
  },
  // Chart 0.23.0 (docs/adr/0024-operator-rbac.md, "What the charts render"). The ServiceAccount's and the
  // binding's names follow the chart's helpers; their templates were not available to read: an install
  // refused for a name says which at once (a Forbidden naming the object).
  renders: {
    ServiceAccount: ["litellm-operator-controller-manager"],
    Deployment: ["litellm-operator-controller-manager"],
    ClusterRole: ["litellm-operator-manager-role"],
    ClusterRoleBinding: ["litellm-operator-manager-rolebinding"],
  },
  identity: {
    // The chart's controller Deployment (`<fullname>-controller-manager`) and its pods carry both.
    labels: [{ "app.kubernetes.io/name": "litellm-operator", "control-plane": "controller-manager" }],
    images: ["ghcr.io/palenaai/litellm-operator"],
  },
  values: {},
  prerequisites: [],
});
