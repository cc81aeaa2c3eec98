import type { V1Deployment, V1StatefulSet } from "@kubernetes/client-node";
import type { CapabilityEntry } from "../catalog/capability.js";
import { imageRepository, matchingUpstreamImage } from "../catalog/image-identity.js";
import { CRD_COLLECTION } from "../cluster/crd-metadata.js";
import {
  cachedReleaseRecord,
  decodeReleaseSecret,
  HELM_NAME_LABEL,
  HELM_OWNER_LABEL,
  latestReleaseSecret,
} from "../cluster/helm-release-record.js";
import { type KubeClient, orUndefined } from "../cluster/kube-client.js";
import { METADATA_ONLY } from "../cluster/metadata-list.js";
import { objectNames } from "../cluster/object-names.js";
import type { ReleaseRecord, ReleaseWorkload } from "../cluster/release-record.js";
import { servedResources } from "../cluster/served-resources.js";
import type { CapabilityObservation, ControllerSighting, CrdState, WorkloadState } from "./observation.js";
import { availableReplicas, deploymentReady, statefulSetReady, wantedReplicas } from "./workload-readiness.js";

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

function groupOf(crdName: string): string {
  return crdName.slice(crdName.indexOf(".") + 1);
}

/**
 * Which of the capability's CRDs exist and which are Established, in one request when all are served:
 * discovery lists a CRD only once it is Established and while a version of it is served, so being
 * served answers both questions for every CRD at once. Only when some are not served are the names of
 * the cluster's CRDs read too (one more request, a Table without objects): a CRD that exists without
 * being Established still counts for detection (CRDs present) and is reported "not Established", not
 * "missing".
 */
async function observeCrds(client: KubeClient, names: readonly string[]): Promise<CrdState[]> {
  const served = await servedResources(client, [...new Set(names.map(groupOf))]);
  if (names.every((name) => served.has(name))) return names.map((name) => ({ name, exists: true, established: true }));
  const existing = await objectNames(client, CRD_COLLECTION);
  return names.map((name) => ({
    name,
    exists: existing.has(name),
    established: existing.has(name) && served.has(name),
  }));
}

interface Readiness {
  readonly ready: boolean;
  readonly replicas: number;
  readonly availableReplicas: number;
}

/** What readiness reads of a Deployment or StatefulSet, `ready` judged by its kind's rollout. */
function readiness(workload: V1Deployment | V1StatefulSet, ready: boolean): Readiness & { readonly name: string } {
  return {
    name: workload.metadata?.name ?? "",
    ready,
    replicas: wantedReplicas(workload),
    availableReplicas: availableReplicas(workload),
  };
}

/** The workloads of one kind in one namespace, by name: one list, however many the release declares. */
async function workloadsByName(
  client: KubeClient,
  kind: ReleaseWorkload["kind"],
  namespace: string,
): Promise<ReadonlyMap<string, Readiness>> {
  const found =
    kind === "Deployment"
      ? (await client.apps.listNamespacedDeployment({ namespace })).items.map((d) => readiness(d, deploymentReady(d)))
      : (await client.apps.listNamespacedStatefulSet({ namespace })).items.map((s) =>
          readiness(s, statefulSetReady(s)),
        );
  return new Map(found.map((workload) => [workload.name, workload]));
}

/**
 * The release's workloads with their readiness: one list per kind and namespace the manifest declares
 * (the Deployments of the release namespace; StatefulSets only when the manifest has any), not one read
 * per workload.
 */
async function observeWorkloads(client: KubeClient, workloads: readonly ReleaseWorkload[]): Promise<WorkloadState[]> {
  const lists = new Map<string, Promise<ReadonlyMap<string, Readiness>>>();
  const listFor = (workload: ReleaseWorkload) => {
    const key = `${workload.kind} ${workload.namespace}`;
    const list = lists.get(key) ?? workloadsByName(client, workload.kind, workload.namespace);
    lists.set(key, list);
    return list;
  };
  return Promise.all(
    workloads.map(async (workload) => {
      const found = (await listFor(workload)).get(workload.name);
      return {
        ...workload,
        exists: found !== undefined,
        ready: found?.ready ?? false,
        replicas: found?.replicas ?? 0,
        availableReplicas: found?.availableReplicas ?? 0,
      };
    }),
  );
}

function sighting(deployment: V1Deployment, matchedBy: string): ControllerSighting {
  return {
    name: deployment.metadata?.name ?? "",
    namespace: deployment.metadata?.namespace ?? "",
    matchedBy,
    ready: deploymentReady(deployment),
    replicas: wantedReplicas(deployment),
    availableReplicas: availableReplicas(deployment),
  };
}

function carries(deployment: V1Deployment, labels: Readonly<Record<string, string>>): boolean {
  const present = deployment.metadata?.labels ?? {};
  return Object.entries(labels).every(([key, value]) => present[key] === value);
}

/**
 * Finds the capability's controller anywhere in the cluster, by its label sets in order (the first set
 * any Deployment carries wins), then, only if none matched, by the image repository of its containers.
 * The first label set, the official chart's own, is one label-selected list, so that the common case
 * never reads other Deployments. Whatever comes after it is judged in ONE pass over a paged list of
 * every Deployment: the other label sets and the images together, so that an entry with several label
 * sets costs no more requests than one with a single set. That list is the one cost that grows with the
 * cluster's Deployments (a request per 250), never with its Secrets or foreign releases.
 */
async function findControllers(client: KubeClient, entry: CapabilityEntry): Promise<ControllerSighting[]> {
  const [first, ...others] = entry.identity.labels;
  if (first) {
    const selector = labelSelector(first);
    const found = await client.apps.listDeploymentForAllNamespaces({ labelSelector: selector });
    if (found.items.length > 0) return found.items.map((d) => sighting(d, `label ${selector}`));
  }
  const byLabels = others.map(() => [] as ControllerSighting[]);
  const byImage: ControllerSighting[] = [];
  let continueToken: string | undefined;
  do {
    const page = await client.apps.listDeploymentForAllNamespaces({ limit: DEPLOYMENT_PAGE, _continue: continueToken });
    for (const deployment of page.items) {
      others.forEach((labels, set) => {
        if (carries(deployment, labels)) byLabels[set]?.push(sighting(deployment, `label ${labelSelector(labels)}`));
      });
      const match = imageMatch(deployment.spec?.template.spec?.containers ?? [], entry.identity.images);
      if (match) byImage.push(sighting(deployment, match));
    }
    continueToken = page.metadata?._continue || undefined;
  } while (continueToken);
  return byLabels.find((sightings) => sightings.length > 0) ?? byImage;
}

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

/**
 * Reads one capability's state in a few requests, none of whose answers grows with unrelated objects
 * (docs/provenance.md, "Detection cost"): the release Secrets' metadata and discovery, at once; then the
 * CRD names only when some CRD is not served; then either the release's workloads (one list per kind and
 * namespace) or, for CRDs without a release, the controller search. Three or four requests in every
 * state of the catalog's entries, the first read of a new release revision included; one more for a
 * release that declares StatefulSets, for CRDs all present but not all Established without a release,
 * and per 250 Deployments beyond the first when the first label set finds no controller.
 */
export async function observeCapability(client: KubeClient, entry: CapabilityEntry): Promise<CapabilityObservation> {
  const [release, crds] = await Promise.all([observeRelease(client, entry), observeCrds(client, entry.crds.names)]);
  const allCrdsExist = crds.every((crd) => crd.exists);
  const controllers = !release && allCrdsExist ? await findControllers(client, entry) : [];
  const releaseWorkloads = release ? await observeWorkloads(client, release.workloads) : [];
  return { name: entry.name, ...(release ? { release } : {}), crds, controllers, releaseWorkloads };
}
