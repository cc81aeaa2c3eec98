import { WorkloadEntry } from "./workload.js";

/**
 * Meilisearch, the search engine behind a managed MeilisearchInstance: the official chart of
 * meilisearch/meilisearch-kubernetes (charts/meilisearch), installed once per resource. The values the
 * product sets, and what the chart does with them, are checked against chart 0.34.0: docs/meilisearch.md.
 */
export const MEILISEARCH = WorkloadEntry.parse({
  name: "meilisearch",
  description: "Meilisearch search engine (official chart); one StatefulSet and its Service per release.",
  chart: {
    repository: "https://meilisearch.github.io/meilisearch-kubernetes",
    name: "meilisearch",
    version: "0.34.0",
    appVersion: "v1.48.3",
  },
});
