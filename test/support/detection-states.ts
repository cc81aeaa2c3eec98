import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { CapabilityInstaller } from "../../lib/capabilities/installer.js";
import type { ProvenanceState } from "../../lib/capabilities/provenance.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { REDIS_OPERATOR } from "../../lib/catalog/redis-operator.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient, ObjectHeader } from "../../lib/cluster/kube-client.js";
import { FIXTURE_CHARTS, FIXTURE_SOURCE, resetCapabilities } from "./capabilities.js";
import { eventually } from "./cluster.js";

/** Every catalog entry, prerequisites first: each state below is set up for all of them at once. */
export const DETECTION_ENTRIES: readonly CapabilityEntry[] = [CERT_MANAGER, CLOUDNATIVE_PG, REDIS_OPERATOR];

/** Values that keep a fixture chart from rendering its CRDs (they exist already in the states that use them). */
const WITHOUT_CRDS: Readonly<Record<string, Record<string, unknown>>> = {
  "cert-manager": { crds: { enabled: false } },
  "cloudnative-pg": { crds: { create: false } },
};

/** The identity label keys whose removal leaves a controller recognisable by its image only. */
const IDENTITY_LABEL_KEYS = new Set(DETECTION_ENTRIES.flatMap((e) => e.identity.labels.flatMap((l) => Object.keys(l))));

export interface DetectionStateContext {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  /** A namespace of the caller's own, for the controllers a user installed by hand. */
  readonly foreignNamespace: string;
}

/** One cluster state detection meets, and how it is reached from the state listed before it. */
export interface DetectionState {
  readonly name: string;
  readonly state: ProvenanceState;
  readonly setUp: (context: DetectionStateContext) => Promise<void>;
}

function chartOf(entry: CapabilityEntry): string {
  return join(FIXTURE_CHARTS, entry.chart.name);
}

/**
 * The fixture charts' controller Deployments applied directly in the foreign namespace, as a user running
 * `kubectl apply` on raw manifests would: no helm release. Only the Deployments, which are all detection
 * looks at: a chart's cluster-scoped objects (ClusterRoles, their bindings) would outlive the namespace
 * and stand in the way of the next install of the chart.
 */
async function applyRawControllers(context: DetectionStateContext): Promise<void> {
  for (const entry of DETECTION_ENTRIES) {
    const rendered = await context.helm.template("raw", chartOf(entry), {
      namespace: context.foreignNamespace,
      values: WITHOUT_CRDS[entry.name] ?? {},
    });
    for (const document of parseAllDocuments(rendered)) {
      const object = document.toJS() as (ObjectHeader & { metadata: { namespace?: string } }) | null;
      if (object?.kind !== "Deployment") continue;
      object.metadata.namespace = context.foreignNamespace;
      await context.client.apply(object, { fieldManager: "kubectl" });
    }
  }
}

/** Removes the identity labels from every Deployment of the foreign namespace: only images can tell them. */
async function removeIdentityLabels(context: DetectionStateContext): Promise<void> {
  const { items } = await context.client.apps.listNamespacedDeployment({ namespace: context.foreignNamespace });
  for (const deployment of items) {
    const labels = Object.fromEntries(
      Object.entries(deployment.metadata?.labels ?? {}).filter(([key]) => !IDENTITY_LABEL_KEYS.has(key)),
    );
    await context.client.apps.patchNamespacedDeployment({
      name: deployment.metadata?.name ?? "",
      namespace: context.foreignNamespace,
      body: [{ op: "replace", path: "/metadata/labels", value: labels }],
    });
  }
}

/** Ensure passes, as a requeueing reconciler makes them, until every entry is Ready (and so Owned). */
async function installOwned(context: DetectionStateContext): Promise<void> {
  const installer = new CapabilityInstaller({ client: context.client, helm: context.helm, source: FIXTURE_SOURCE });
  for (const entry of DETECTION_ENTRIES) {
    await eventually(
      `${entry.name} to be Ready`,
      async () => {
        const decisions = await installer.ensure(entry.name);
        const last = decisions[decisions.length - 1];
        return last?.capability === entry.name && last.ready ? true : undefined;
      },
      { timeoutMs: 300_000 },
    );
  }
}

/**
 * The states, in the order they are set up (each from the one before): the CRDs are deleted once, at the
 * start, since deleting them right after a chart re-applied them can keep the apiserver busy for minutes.
 * The caller holds the capability lock (lockCapabilities) and creates the foreign namespace.
 */
export const DETECTION_STATES: readonly DetectionState[] = [
  {
    name: "nothing installed",
    state: "Absent",
    setUp: (c) => resetCapabilities(c.client, c.helm, DETECTION_ENTRIES, { crds: true }),
  },
  { name: "our release", state: "Owned", setUp: installOwned },
  {
    name: "orphaned CRDs (our release uninstalled)",
    state: "Absent",
    setUp: (c) => resetCapabilities(c.client, c.helm, DETECTION_ENTRIES, { crds: false }),
  },
  {
    name: "a release of the expected name without our marks",
    state: "Adopted",
    setUp: async (c) => {
      for (const entry of DETECTION_ENTRIES) {
        await c.helm.install(entry.release.name, chartOf(entry), {
          namespace: entry.release.namespace,
          createNamespace: true,
          values: WITHOUT_CRDS[entry.name] ?? {},
          wait: false,
        });
      }
    },
  },
  {
    name: "a controller matched by its labels, no release",
    state: "Adopted",
    setUp: async (c) => {
      await resetCapabilities(c.client, c.helm, DETECTION_ENTRIES, { crds: false });
      await applyRawControllers(c);
    },
  },
  { name: "a controller matched by its image only", state: "Adopted", setUp: removeIdentityLabels },
];
