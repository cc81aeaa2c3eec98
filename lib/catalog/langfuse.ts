import { WorkloadEntry } from "./workload.js";

/**
 * Langfuse, the observability behind an Observability: the official chart of langfuse/langfuse-k8s
 * (charts/langfuse), installed once per resource with every bundled store off. Chart 2.0.0 ships
 * Langfuse v4 (docs/adr/0039-langfuse-v4.md); the values the product sets, and what the chart does with
 * them, are checked against it: docs/observability.md.
 */
export const LANGFUSE = WorkloadEntry.parse({
  name: "langfuse",
  description: "Langfuse LLM observability (official chart); a web and a worker Deployment per release.",
  chart: {
    // The chart's README installs from here; it calls the HTTP index (langfuse.github.io/langfuse-k8s)
    // legacy. No digest: the index's is that of another packaging of the same version.
    oci: "oci://ghcr.io/langfuse/langfuse-k8s/charts/langfuse",
    name: "langfuse",
    version: "2.0.0",
    appVersion: "4.4.0",
  },
  // The chart's Secret of what the values do not give (templates/langfuse-app-secret.yaml), kept on
  // uninstall: only the session secret is in it (lib/kinds/observability/chart.ts says why).
  keptSecrets: ["{release}-app"],
});
