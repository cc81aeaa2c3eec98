import { setHeaderMiddleware } from "@kubernetes/client-node";
import type { CapabilityEntry } from "../catalog/capability.js";
import { imageRepository, matchingUpstreamImage } from "../catalog/image-identity.js";
import {
  cachedReleaseRecord,
  decodeReleaseSecret,
  HELM_NAME_LABEL,
  HELM_OWNER_LABEL,
  latestReleaseSecret,
  type ReleaseRecord,
  type ReleaseWorkload,
} from "../cluster/helm-release-record.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { deploymentReady, statefulSetReady } from "./workload-readiness.js";

export interface CrdState {
  readonly name: string;
  readonly exists: boolean;
  readonly established: boolean;
}

/** A Deployment recognised as the capability's controller by its identity, wherever it runs. */
export interface ControllerSighting {
  readonly name: string;
  readonly namespace: string;
  /** Which identity matched: `label app.kubernetes.io/name=cloudnative-pg` or `image ghcr.io/...`. */
  readonly matchedBy: string;
  readonly ready: boolean;
}

export interface WorkloadState extends ReleaseWorkload {
  readonly exists: boolean;
  readonly ready: boolean;
}

/** Everything detection and readiness need to know about one capability, read from the cluster. */
export interface CapabilityObservation {
  readonly name: string;
  /** Latest revision of the release under the catalog's fixed name and namespace, if any. */
  readonly release?: ReleaseRecord;
  readonly crds: readonly CrdState[];
  /** Filled only when detection needs it: CRDs present and no release of the expected name. */
  readonly controllers: readonly ControllerSighting[];
  /** The Deployments and StatefulSets the release's manifest declares, with their readiness. */
  readonly releaseWorkloads: readonly WorkloadState[];
}

const DEPLOYMENT_PAGE = 250;

function labelSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
}

/**
 * `image <repository>` for the first container whose image is one of the upstream repositories, from
 * whatever registry; a mirror's repository is named with the upstream one it stands for.
 */
function imageMatch(
  containers: readonly { readonly image?: string }[],
  upstream: readonly string[],
): string | undefined {
  for (const container of containers) {
    const image = container.image ?? "";
    const identity = matchingUpstreamImage(image, upstream);
    if (!identity) continue;
    const found = imageRepository(image);
    return found === imageRepository(identity) ? `image ${found}` : `image ${found} (mirror of ${identity})`;
  }
  return undefined;
}

async function observeCrds(client: KubeClient, names: readonly string[]): Promise<CrdState[]> {
  return Promise.all(
    names.map(async (name) => {
      const crd = await orUndefined(client.extensions.readCustomResourceDefinition({ name }));
      const established =
        crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
      return { name, exists: crd !== undefined, established };
    }),
  );
}

async function observeWorkloads(client: KubeClient, workloads: readonly ReleaseWorkload[]): Promise<WorkloadState[]> {
  return Promise.all(
    workloads.map(async (workload) => {
      const args = { name: workload.name, namespace: workload.namespace };
      if (workload.kind === "Deployment") {
        const deployment = await orUndefined(client.apps.readNamespacedDeployment(args));
        return {
          ...workload,
          exists: deployment !== undefined,
          ready: deployment ? deploymentReady(deployment) : false,
        };
      }
      const statefulSet = await orUndefined(client.apps.readNamespacedStatefulSet(args));
      return {
        ...workload,
        exists: statefulSet !== undefined,
        ready: statefulSet ? statefulSetReady(statefulSet) : false,
      };
    }),
  );
}

/**
 * Finds the capability's controller anywhere in the cluster: first by each of its well-known label sets
 * (one label-selected list each), then, only if none matched, by the image repository of its containers
 * (a paged list of Deployments, the one cost that grows with the cluster's Deployments, never with its
 * Secrets or foreign releases).
 */
async function findControllers(client: KubeClient, entry: CapabilityEntry): Promise<ControllerSighting[]> {
  for (const labels of entry.identity.labels) {
    const selector = labelSelector(labels);
    const found = await client.apps.listDeploymentForAllNamespaces({ labelSelector: selector });
    if (found.items.length > 0) {
      return found.items.map((d) => ({
        name: d.metadata?.name ?? "",
        namespace: d.metadata?.namespace ?? "",
        matchedBy: `label ${selector}`,
        ready: deploymentReady(d),
      }));
    }
  }
  const sightings: ControllerSighting[] = [];
  let continueToken: string | undefined;
  do {
    const page = await client.apps.listDeploymentForAllNamespaces({ limit: DEPLOYMENT_PAGE, _continue: continueToken });
    for (const deployment of page.items) {
      const match = imageMatch(deployment.spec?.template.spec?.containers ?? [], entry.identity.images);
      if (match) {
        sightings.push({
          name: deployment.metadata?.name ?? "",
          namespace: deployment.metadata?.namespace ?? "",
          matchedBy: match,
          ready: deploymentReady(deployment),
        });
      }
    }
    continueToken = page.metadata?._continue || undefined;
  } while (continueToken);
  return sightings;
}

/**
 * Lists only the metadata of the matching objects (a PartialObjectMetadataList): release Secrets are
 * chosen by their labels, and a real operator's revision weighs ~0.5 MB of payload each.
 */
const METADATA_ONLY = {
  middleware: [setHeaderMiddleware("Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")],
  middlewareMergeStrategy: "append" as const,
};

/**
 * The latest revision of the release: its Secret is chosen by the labels of a metadata-only list, and
 * fetched and decoded only when this Secret at this resourceVersion was not decoded before.
 */
async function observeRelease(client: KubeClient, entry: CapabilityEntry): Promise<ReleaseRecord | undefined> {
  const { name, namespace } = entry.release;
  const secrets = await client.core.listNamespacedSecret(
    { namespace, labelSelector: `${HELM_OWNER_LABEL}=helm,${HELM_NAME_LABEL}=${name}` },
    METADATA_ONLY,
  );
  // An empty PartialObjectMetadataList comes with `items: null`.
  const latest = latestReleaseSecret(secrets.items ?? []);
  const secretName = latest?.metadata?.name;
  if (!latest || !secretName) return undefined;
  const cached = cachedReleaseRecord(latest);
  if (cached) return cached;
  const full = await orUndefined(client.core.readNamespacedSecret({ name: secretName, namespace }));
  // Gone between the list and the read: a revision replaced meanwhile; the next pass sees the new one.
  return full ? decodeReleaseSecret(full) : undefined;
}

/** Reads one capability's state with a small number of requests that does not grow with unrelated objects. */
export async function observeCapability(client: KubeClient, entry: CapabilityEntry): Promise<CapabilityObservation> {
  const [release, crds] = await Promise.all([observeRelease(client, entry), observeCrds(client, entry.crds.names)]);
  const allCrdsExist = crds.every((crd) => crd.exists);
  const controllers = !release && allCrdsExist ? await findControllers(client, entry) : [];
  const releaseWorkloads = release ? await observeWorkloads(client, release.workloads) : [];
  return { name: entry.name, ...(release ? { release } : {}), crds, controllers, releaseWorkloads };
}
