import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { TEST_SUITE_LABEL } from "./cluster.js";

/**
 * Plays the storage provisioner the local plane lacks: a hostPath PersistentVolume bound to the claim.
 * The real PV controller binds them, the real scheduler places the pod on a kwok node, kwok runs it and
 * the real StatefulSet controller reports the rollout. Its capacity, 10Gi unless said, must cover the claim,
 * and its class be the claim's; labelled with the suite, by which its cleanup finds it.
 */
export async function provisionVolume(
  client: KubeClient,
  suite: string,
  namespace: string,
  claim: string,
  capacity = "10Gi",
  storageClassName?: string,
): Promise<void> {
  const name = `${namespace}-${claim}`;
  if (await orUndefined(client.core.readPersistentVolume({ name }))) return;
  await client.core.createPersistentVolume({
    body: {
      metadata: { name, labels: { [TEST_SUITE_LABEL]: suite } },
      spec: {
        capacity: { storage: capacity },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: `/tmp/${name}` },
        claimRef: { namespace, name: claim },
        persistentVolumeReclaimPolicy: "Delete",
        // A claim naming a class binds only to a volume of that class.
        ...(storageClassName ? { storageClassName } : {}),
      },
    },
  });
}

/** Deletes the volumes a suite provisioned: cluster-scoped, they outlive its namespaces. */
export async function deleteProvisionedVolumes(client: KubeClient, suite: string): Promise<void> {
  const volumes = await client.core.listPersistentVolume({ labelSelector: `${TEST_SUITE_LABEL}=${suite}` });
  await Promise.all(
    volumes.items.map((v) => orUndefined(client.core.deletePersistentVolume({ name: v.metadata?.name ?? "" }))),
  );
}
