import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { reconcileResource } from "../../lib/engine/reconcile.js";
import { KEEPING_VOLUMES, RETAIN_LOST_WITH_NAMESPACE } from "../../lib/engine/retained-with-namespace.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition, eventually } from "../support/cluster.js";
import { TEST_TRUSTED_KEYS } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { createResource, readStoredResource, reconcileUntil } from "../support/resources.js";
import { deleteProvisionedVolumes, provisionVolume } from "../support/volumes.js";

/** What the volumes this suite provisions are labelled with. */
const SUITE = "retained-with-namespace";

/**
 * Holds an object of the namespace while the test looks: the namespace controller deletes everything in
 * it at once, and a pass running the moment the namespace is deleted still finds what Retain kept.
 */
const HOLD = "test.navique.com/hold";

/** The advice the condition gives, as `kubectl patch pv` applies it. */
const RETAIN_VOLUME = [{ op: "replace", path: "/spec/persistentVolumeReclaimPolicy", value: "Retain" }];

// A MeilisearchInstance under deletionPolicy Retain (the default) whose namespace is deleted, on the real
// plane with real helm (the fixture chart standing in for the official one): the namespace controller
// deletes every object in it, the claim of its data and its master key included, whatever Retain says.
// The engine's pass over the resource, which the namespace controller waits for (its finalizer), says so
// before the resource goes. No storage provisioner runs here: the test binds the claim to a hostPath
// volume as one would (test/support/volumes.ts), and follows the advice the condition gives. The
// Community edition allows one MeilisearchInstance in the cluster: the suite holds the lock.
describe("a resource under Retain whose namespace is deleted", () => {
  let client: KubeClient;
  let context: ReconcileContext;
  const namespaces = suiteNamespaces();
  let released: (() => Promise<void>) | undefined;
  let unlock: (() => Promise<void>) | undefined;

  /** Adds or removes the test's finalizer, leaving the others (the claim's kubernetes.io/pvc-protection). */
  const hold = async (kind: "Secret" | "PersistentVolumeClaim", namespace: string, name: string, on: boolean) => {
    const read =
      kind === "Secret"
        ? client.core.readNamespacedSecret({ name, namespace })
        : client.core.readNamespacedPersistentVolumeClaim({ name, namespace });
    const others = ((await read).metadata?.finalizers ?? []).filter((f) => f !== HOLD);
    const body = [{ op: "add", path: "/metadata/finalizers", value: on ? [...others, HOLD] : others }];
    if (kind === "Secret") await client.core.patchNamespacedSecret({ name, namespace, body });
    else await client.core.patchNamespacedPersistentVolumeClaim({ name, namespace, body });
  };

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    await ensureNaviqueCrds(client);
    context = createReconcileContext({
      client,
      helm: await testHelm(),
      source: FIXTURE_SOURCE,
      trustedKeys: TEST_TRUSTED_KEYS,
    });
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    // A failed test leaves what it held: let it go, or the namespace stays Terminating.
    await released?.();
    if (context) await namespaces.discard(context);
    await deleteProvisionedVolumes(client, SUITE);
    await unlock?.();
  }, 120_000);

  it("says on its conditions, and in a Warning Event about the Namespace, what goes with it and how to keep the data; the advice keeps the volume", async () => {
    const ns = await namespaces.create("retain-ns");
    const volume = `${ns}-search-data`;
    await createResource(client, "MeilisearchInstance", ns, "search", {});
    await reconcileUntil(
      context,
      "MeilisearchInstance",
      ns,
      "search",
      (o) => !o.requeue,
      () => provisionVolume(client, SUITE, ns, "search-data"),
    );
    await hold("Secret", ns, "search-master-key", true);
    await hold("PersistentVolumeClaim", ns, "search-data", true);
    released = async () => {
      await hold("Secret", ns, "search-master-key", false).catch(() => undefined);
      await hold("PersistentVolumeClaim", ns, "search-data", false).catch(() => undefined);
    };

    await client.core.deleteNamespace({ name: ns });
    const resource = await eventually(
      `namespace ${ns} Terminating, and the MeilisearchInstance in it being deleted`,
      async () => {
        const stored = await readStoredResource(client, "MeilisearchInstance", ns, "search");
        return stored?.metadata.deletionTimestamp ? stored : undefined;
      },
      { timeoutMs: 60_000 },
    );

    // The first pass says it, and keeps its finalizer so that the condition is written before it goes.
    const first = await reconcileResource(context, resource);
    expect(first.finalized).toBe(false);
    const said = `namespace ${ns} is being deleted, and everything in it goes with it: Secret ${ns}/search-master-key, PersistentVolumeClaim ${ns}/search-data (volume ${volume}), which deletionPolicy Retain keeps. Retain keeps nothing in a namespace that goes. ${KEEPING_VOLUMES}`;
    const stored = await readStoredResource(client, "MeilisearchInstance", ns, "search");
    for (const type of ["Ready", "DatastoreReady"]) {
      expect(condition(stored, type)).toMatchObject({
        status: "False",
        reason: RETAIN_LOST_WITH_NAMESPACE,
        message: said,
      });
    }
    // The namespace takes no new Event: it is recorded about the Namespace, in default, and outlives it.
    const events = await client.events.listNamespacedEvent({ namespace: "default" });
    const aboutIt = events.items.filter((e) => e.regarding?.kind === "Namespace" && e.regarding.name === ns);
    expect(aboutIt.map((e) => [e.type, e.reason, e.note, e.related?.kind, e.related?.name])).toEqual([
      [
        "Warning",
        RETAIN_LOST_WITH_NAMESPACE,
        `MeilisearchInstance ${ns}/search: ${said}`,
        "MeilisearchInstance",
        "search",
      ],
    ]);

    // The next pass finds it said: nothing more is recorded, and the finalizer goes.
    const again = await readStoredResource(client, "MeilisearchInstance", ns, "search");
    if (!again) throw new Error(`MeilisearchInstance ${ns}/search vanished before its next pass`);
    expect((await reconcileResource(context, again)).finalized).toBe(true);
    const after = await client.events.listNamespacedEvent({ namespace: "default" });
    expect(after.items.filter((e) => e.regarding?.kind === "Namespace" && e.regarding.name === ns)).toHaveLength(1);

    // The advice, followed while the claim is still there: the volume outlives the claim and the namespace,
    // Released with its data, still naming the claim it was bound to.
    await client.core.patchPersistentVolume({ name: volume, body: RETAIN_VOLUME });
    await hold("Secret", ns, "search-master-key", false);
    await hold("PersistentVolumeClaim", ns, "search-data", false);
    await eventually(
      `namespace ${ns} gone`,
      async () => ((await orUndefined(client.core.readNamespace({ name: ns }))) ? undefined : true),
      { timeoutMs: 120_000 },
    );
    const kept = await eventually(
      `volume ${volume} Released`,
      async () => {
        const pv = await orUndefined(client.core.readPersistentVolume({ name: volume }));
        return pv?.status?.phase === "Released" ? pv : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(kept.spec?.claimRef).toMatchObject({ namespace: ns, name: "search-data" });

    for (const event of aboutIt) {
      await orUndefined(
        client.events.deleteNamespacedEvent({ name: event.metadata?.name ?? "", namespace: "default" }),
      );
    }
  }, 300_000);
});
