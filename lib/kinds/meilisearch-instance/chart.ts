// Facts of the official Meilisearch chart the product relies on (meilisearch/meilisearch-kubernetes,
// charts/meilisearch 0.34.0, read upstream; docs/meilisearch.md says where each one comes from).

/**
 * The port of the chart's Service (`service.port`, 7700; the container listens on `container.containerPort`,
 * 7700 too).
 */
export const MEILISEARCH_PORT = 7700;

/**
 * The key the chart reads the master key from: with `auth.existingMasterKeySecret` set, the StatefulSet
 * takes the whole Secret as environment (`envFrom.secretRef`), and Meilisearch reads `MEILI_MASTER_KEY`.
 */
export const MASTER_KEY_ENV = "MEILI_MASTER_KEY";

/**
 * The chart names its StatefulSet, Service and ConfigMap (`<fullname>-environment`) after `fullname`,
 * which `fullnameOverride` sets: the product sets it to the resource's name, so that every name is known
 * without rendering.
 */
export function meilisearchValues(options: {
  readonly name: string;
  readonly masterKeySecret: string;
  readonly claim: string;
}): Record<string, unknown> {
  return {
    fullnameOverride: options.name,
    // production refuses to start without a master key, and the key comes from the Secret below, never
    // from `environment` (which the chart writes into a ConfigMap in plain text).
    environment: { MEILI_ENV: "production", MEILI_NO_ANALYTICS: true },
    auth: { existingMasterKeySecret: options.masterKeySecret },
    // The data lives in a claim the product emits, under the resource's deletion policy: the chart's own
    // claim (templates/pvc.yaml) would go with `helm uninstall`.
    persistence: { enabled: true, existingClaim: options.claim },
  };
}
