import { WorkloadEntry } from "./workload.js";

/**
 * LibreChat, the chat UI behind a ChatUI: the official chart of danny-avila/LibreChat (helm/librechat),
 * installed once per resource with its bundled MongoDB, Meilisearch, Redis and RAG API off. Chart 2.0.8,
 * the newest whose files were read upstream (tag chart-2.0.8, LibreChat v0.8.8-rc1): docs/chat-ui.md.
 */
export const LIBRECHAT = WorkloadEntry.parse({
  name: "librechat",
  description: "LibreChat chat UI (official chart); one Deployment, its Service and its images volume per release.",
  chart: {
    // Published only as an OCI artifact (.github/workflows/helmcharts.yml pushes to ghcr.io/<owner>/librechat-chart).
    oci: "oci://ghcr.io/danny-avila/librechat-chart/librechat",
    name: "librechat",
    version: "2.0.8",
    appVersion: "v0.8.8-rc1",
  },
});
