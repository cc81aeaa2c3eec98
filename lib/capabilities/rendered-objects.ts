import pMap from "p-map";
import { crdMetadata } from "../cluster/crd-metadata.js";
import { helmOutputDocuments } from "../cluster/helm-output.js";
import {
  HELM_NAME_LABEL,
  HELM_OWNER_LABEL,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
} from "../cluster/helm-release-record.js";
import type { KubeClient, ObjectHeader } from "../cluster/kube-client.js";
import { METADATA_ONLY } from "../cluster/metadata-list.js";
import type { ExistingObject } from "./release-ownership.js";

/** One object of a rendered chart, with the namespace helm would put it in. */
export interface RenderedObject extends ObjectHeader {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** The API does not serve the object's kind (yet): a CRD the same chart installs, or a missing one. */
export interface UnservedObject {
  readonly object: RenderedObject;
}

export interface RenderedManifest {
  /** Objects of kinds the API serves, namespaced ones placed in their namespace as helm places them. */
  readonly served: readonly RenderedObject[];
  readonly unserved: readonly UnservedObject[];
}

const HOOK_ANNOTATION = "helm.sh/hook";

interface ParsedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
}

/**
 * The release's objects from `helm template` output: hooks are left out (helm runs them as its own
 * lifecycle and never records them in the release, so it never deletes them with it), and so are empty
 * documents. A namespaced object without a namespace goes to the release namespace, as helm puts it.
 */
export async function placeRenderedObjects(
  client: KubeClient,
  manifest: string,
  releaseNamespace: string,
): Promise<RenderedManifest> {
  const served: RenderedObject[] = [];
  const unserved: UnservedObject[] = [];
  for (const document of helmOutputDocuments(manifest)) {
    const parsed = document as ParsedObject | null;
    if (!parsed?.kind || !parsed.apiVersion || !parsed.metadata?.name) continue;
    if (parsed.metadata.annotations?.[HOOK_ANNOTATION]) continue;
    const object = parsed as RenderedObject;
    const namespaced = await client.namespaced(object.apiVersion, object.kind);
    if (namespaced === undefined) {
      unserved.push({ object });
      continue;
    }
    const { namespace, ...rest } = object.metadata;
    served.push({
      ...object,
      metadata: namespaced ? { ...rest, namespace: namespace ?? releaseNamespace } : rest,
    });
  }
  return { served, unserved };
}

/**
 * Whether a helm release still exists: any record of it that is not `uninstalled` (kept by --keep-history).
 * Its records' labels say it: their metadata is listed, as detection lists it, not their payloads.
 */
async function releaseLive(client: KubeClient, namespace: string, release: string): Promise<boolean> {
  const records = await client.core.listNamespacedSecret(
    { namespace, labelSelector: `${HELM_OWNER_LABEL}=helm,${HELM_NAME_LABEL}=${release}` },
    METADATA_ONLY,
  );
  // An empty PartialObjectMetadataList comes with `items: null`.
  return (records.items ?? []).some((record) => record.metadata?.labels?.status !== "uninstalled");
}

function header(object: RenderedObject): ObjectHeader {
  const { namespace, name } = object.metadata;
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: namespace ? { name, namespace } : { name } };
}

/**
 * How many requests a preflight has in flight at once: a chart renders tens of objects, read one after
 * the other they made a reinstall wait seconds; more at once would crowd an apiserver's priority levels.
 */
export const PREFLIGHT_CONCURRENCY = 8;

const isCrd = (object: RenderedObject) =>
  object.apiVersion === "apiextensions.k8s.io/v1" && object.kind === "CustomResourceDefinition";

/**
 * The rendered objects that already exist, with their ownership metadata and the liveness of the release
 * it names: their metadata is what is judged, and all that is read. The CRDs among them, a chart's bulk,
 * are judged from one list of every CRD's metadata (lib/cluster/crd-metadata.ts); every other object's
 * metadata is read.
 */
export async function observeExistingObjects(
  client: KubeClient,
  objects: readonly RenderedObject[],
): Promise<ExistingObject[]> {
  // Listed when the first CRD is looked at, once for all of them.
  let listed: ReturnType<typeof crdMetadata> | undefined;
  const crds = () => {
    listed ??= crdMetadata(client);
    return listed;
  };
  // Many objects name the same release (the CRDs an earlier install left): its records are listed once.
  const liveness = new Map<string, Promise<boolean>>();
  const live = (namespace: string, release: string) => {
    const key = `${namespace}/${release}`;
    let known = liveness.get(key);
    if (!known) {
      known = releaseLive(client, namespace, release);
      liveness.set(key, known);
    }
    return known;
  };
  const observed = await pMap(
    objects,
    async (object): Promise<ExistingObject | undefined> => {
      const stored = isCrd(object)
        ? (await crds()).get(object.metadata.name)
        : await client.readMetadata(header(object));
      if (!stored) return undefined;
      const labels = stored.metadata?.labels ?? {};
      const annotations = stored.metadata?.annotations ?? {};
      const release = annotations[HELM_RELEASE_NAME_ANNOTATION];
      const namespace = annotations[HELM_RELEASE_NAMESPACE_ANNOTATION];
      return {
        object: header(object),
        labels,
        annotations,
        ...(release && namespace ? { holder: { release, namespace, live: await live(namespace, release) } } : {}),
      };
    },
    { concurrency: PREFLIGHT_CONCURRENCY },
  );
  return observed.filter((o): o is ExistingObject => o !== undefined);
}
