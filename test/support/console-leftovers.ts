import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { CONSOLE_VIEWER_ROLE } from "../../lib/console/console-auth.js";
import { MANAGEMENT_PLANE_KIND, MANAGEMENT_PLANE_NAME } from "../../lib/kinds/management-plane/schema.js";

/** The annotation helm writes on every object of a release: what says an object is a release's. */
const HELM_RELEASE_ANNOTATION = "meta.helm.sh/release-name";

const CONSOLE_OBJECTS = [
  { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: MANAGEMENT_PLANE_KIND, metadata: { name: MANAGEMENT_PLANE_NAME } },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: CONSOLE_VIEWER_ROLE } },
];

/**
 * The console's cluster-wide objects left outside any Helm release — the ManagementPlane and the viewer
 * ClusterRole that test/e2e/console.test.ts applies from the example's synth, left behind by a run killed
 * before its clean-up — deleted, so that helm can install the operator's chart, which renders both. Those
 * a release holds are its own, and left to it.
 */
export async function removeConsoleObjectsOutsideReleases(client: KubeClient): Promise<void> {
  for (const object of CONSOLE_OBJECTS) {
    const stored = await client.read(object);
    if (stored && !stored.metadata?.annotations?.[HELM_RELEASE_ANNOTATION]) await client.delete(object);
  }
}
