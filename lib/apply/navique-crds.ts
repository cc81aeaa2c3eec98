import { setTimeout as sleep } from "node:timers/promises";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { allCustomResourceDefinitions } from "../kinds/registry.js";

const ESTABLISH_TIMEOUT_MS = 60_000;

/**
 * Applies the product's own CRDs (server-side, so a newer product updates them additively) and waits
 * until each is Established; refreshes discovery so that the new kinds are usable at once.
 */
export async function ensureNaviqueCrds(client: KubeClient): Promise<void> {
  const crds = allCustomResourceDefinitions();
  for (const crd of crds) await client.apply(crd);
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (const crd of crds) {
    for (;;) {
      const current = await orUndefined(client.extensions.readCustomResourceDefinition({ name: crd.metadata.name }));
      if (current?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${crd.metadata.name} was not Established within ${ESTABLISH_TIMEOUT_MS / 1000}s`);
      await sleep(200);
    }
  }
  client.refreshDiscovery();
}
