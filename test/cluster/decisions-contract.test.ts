import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pMap from "p-map";
import { stringify } from "yaml";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { LITELLM_OPERATOR } from "../../lib/catalog/litellm-operator.js";
import { SEALED_SECRETS } from "../../lib/catalog/sealed-secrets.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { resourceLabel } from "../../lib/engine/conditions.js";
import { moduleOf, type ReconcileContext } from "../../lib/engine/context.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { listResources } from "../../lib/engine/observe.js";
import { previewDesired } from "../../lib/engine/preview.js";
import { readResource, reconcileResource } from "../../lib/engine/reconcile.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import { DEFAULT_TIMEOUT_SECONDS } from "../../providers/pulumi/component-inputs.js";
import { inPlace } from "../../providers/pulumi/in-place.js";
import { diffInputs, type RuntimeInputs } from "../../providers/pulumi/runtime.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { condition } from "../support/cluster.js";
import { EXAMPLE_CAPABILITIES } from "../support/example-cluster.js";
import { minimalSpec } from "../support/kind-samples.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "../support/licence.js";
import { suiteNamespaces } from "../support/namespace-content.js";
import { planTrustingTestKey } from "../support/plan-cli.js";
import { createResource, readStoredResource } from "../support/resources.js";
import {
  createWorldNamespaces,
  declared,
  inWorld,
  type PlacedSample,
  placeSamples,
  playWorldControllers,
  prepareWorld,
  registeredSamples,
  removeWorldLeftovers,
  type WorldNamespaces,
} from "../support/sample-world.js";

/**
 * Every capability the samples need, each after what needs it (the order their releases are uninstalled
 * in): installed once, up front, by the product's own installer.
 */
const CAPABILITIES = [...EXAMPLE_CAPABILITIES, SEALED_SECRETS];

/** How many passes run at once while the world converges: a busy 2-core machine's share. */
const PASSES_AT_ONCE = 4;

/** How long the world may take to converge before the test names what is still pending. */
const CONVERGE_MS = 150_000;

/**
 * Caps above every sample and fixture of the world; `stack` for the Stack, `auto-wiring` for the ChatUI's
 * key, `identities` for the Organization, Team and User.
 */
const LICENCE = {
  caps: Object.fromEntries(REGISTRY.kinds.map((module) => [module.definition.kind, 20])),
  features: ["stack", "auto-wiring", "identities"],
} as const satisfies Parameters<typeof testLicenceToken>[0];

/** Every resource of every registered kind stored in the given namespaces (members included). */
async function storedIn(client: KubeClient, namespaces: readonly string[]): Promise<EngineResource[]> {
  const lists = await Promise.all(REGISTRY.kinds.map((module) => listResources(client, module)));
  return lists.flat().filter((r) => namespaces.includes(r.metadata.namespace));
}

/**
 * The operator's decision on a resource: one reconcile pass (lib/engine/reconcile.ts), and what it wrote —
 * each step that changed something (the pass reports exactly those), its status, or the resource itself.
 */
async function operatorPass(base: ReconcileContext, resource: EngineResource) {
  const writes: string[] = [];
  const context: ReconcileContext = {
    ...base,
    report: (line) => writes.push(line),
    statusWritten: () => writes.push("status written"),
  };
  const outcome = await reconcileResource(context, resource).catch((error: Error) => {
    writes.push(`failed: ${error.message}`);
    return undefined;
  });
  const module = moduleOf(base, resource.kind);
  const after = await readResource(base, module, resource.metadata.namespace, resource.metadata.name);
  if (after?.metadata.resourceVersion !== resource.metadata.resourceVersion) writes.push("the resource changed");
  return { writes, requeue: outcome?.requeue ?? true, events: outcome?.plan.events ?? [] };
}

/**
 * Reconciles every resource of the world as the operator would, pass after pass, playing the upstream
 * controllers between rounds (test/support/sample-world.ts), until a whole round asks for no requeue.
 */
async function converge(context: ReconcileContext, world: WorldNamespaces): Promise<void> {
  const deadline = Date.now() + CONVERGE_MS;
  const namespaces = Object.values(world);
  for (let round = 1; ; round++) {
    await playWorldControllers(context.client, world);
    const resources = await storedIn(context.client, namespaces);
    const pending = await pMap(
      resources,
      async (resource) => {
        const outcome = await reconcileResource(context, resource).catch((error: Error) => error);
        if (outcome instanceof Error) return `${resourceLabel(resource)}: ${outcome.message}`;
        return outcome.requeue ? `${resourceLabel(resource)}: ${condition(outcome.plan, "Ready")?.message}` : undefined;
      },
      { concurrency: PASSES_AT_ONCE },
    );
    const left = pending.filter((p) => p !== undefined);
    if (left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`the sample world did not converge in ${round} rounds; still pending:\n${left.join("\n")}`);
  }
}

/**
 * What `pulumi preview` decides for a component declaring `sample`, as the provider decides it, in-process
 * (running the Pulumi CLI for every sample would take minutes): the dynamic resource's diff of the inputs
 * its state records — the custom resource's spec, as `up` writes it and `pulumi refresh` reads it back —
 * with the declared ones (providers/pulumi/runtime.ts diffInputs); the in-place check by which the
 * component skips the preview's core (providers/pulumi/in-place.ts); otherwise the lines the preview
 * prints (providers/pulumi/preview-log.ts calls previewDesired, here in a context like its own that also
 * trusts the test licence's key, as in-process runtime calls do).
 */
async function pulumiPreview(
  context: ReconcileContext,
  kubeconfig: string,
  sample: Pick<PlacedSample, "kind" | "namespace" | "name" | "spec">,
) {
  const module = moduleOf(context, sample.kind);
  const stored = await readResource(context, module, sample.namespace, sample.name);
  const inputs = (spec: unknown): RuntimeInputs => ({
    kind: sample.kind,
    namespace: sample.namespace,
    name: sample.name,
    spec,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
  });
  const diff = await diffInputs(inputs(stored?.spec), inputs(module.definition.spec.parse(sample.spec)));
  const { name, namespace, spec } = sample;
  const skipped = await inPlace(module, kubeconfig, { name, namespace, spec });
  const lines = skipped ? [] : (await enginePreview(context, sample)).lines;
  return { changes: diff.changes, replaces: diff.replaces, inPlace: skipped, lines };
}

/** The engine's preview of a declared sample (lib/engine/preview.ts), as every front end asks it. */
function enginePreview(context: ReconcileContext, sample: Pick<PlacedSample, "kind" | "namespace" | "name" | "spec">) {
  const module = moduleOf(context, sample.kind);
  return previewDesired(context, module.schema.parse(declared(sample)) as EngineResource);
}

/** `navique plan` of these resources, from one file, as a CI job runs it. */
async function navique(work: string, file: string, resources: readonly ReturnType<typeof declared>[]) {
  const path = join(work, file);
  await writeFile(path, resources.map((r) => stringify(r)).join("---\n"));
  const result = await planTrustingTestKey(["-f", path], work);
  const lines = result.stdout.split("\n").filter((line) => line !== "");
  const summary = result.stderr.split("\n").find((line) => line.startsWith("plan: ")) ?? result.stderr;
  return { code: result.code, lines, summary };
}

/**
 * A resource held back is looked at again pass after pass (a target may come): it has settled once a pass
 * writes nothing. Its stored state then.
 */
async function settle(
  context: ReconcileContext,
  r: { readonly kind: string; readonly namespace: string; readonly name: string },
): Promise<EngineResource> {
  for (let pass = 0; pass < 6; pass++) {
    const stored = await readStoredResource(context.client, r.kind, r.namespace, r.name);
    if (!stored) throw new Error(`${r.kind} ${r.namespace}/${r.name} is gone`);
    if ((await operatorPass(context, stored)).writes.length === 0) return stored;
  }
  throw new Error(`${r.kind} ${r.namespace}/${r.name} still writes after 6 passes`);
}

/** The lines about one resource: those beginning with its label. */
const about = (lines: readonly string[], label: string) => lines.filter((line) => line.startsWith(`${label}: `));

/** A sample's change of spec: the next sample of its kind, or its least spec when the kind has one. */
function changedSpec(sample: PlacedSample, world: WorldNamespaces): Record<string, unknown> {
  const ofKind = registeredSamples().filter((s) => s.kind === sample.kind);
  const next = ofKind[(sample.index + 1) % ofKind.length];
  return ofKind.length > 1 && next ? inWorld(next.spec, world) : minimalSpec(sample.kind);
}

// One cluster state, three front ends: `navique plan` (the real CLI, test/support/plan-cli.ts), `pulumi
// preview` (the provider's own diff, in-place check and preview, in-process) and the operator (one
// reconcile pass), for every sample of every registered kind. They must decide alike — nothing to change
// once a resource has converged, a change on the resource whose spec changes —, because one engine
// decides for all three. No upstream controller runs here: the world plays them (test/support/sample-world.ts).
describe("navique plan, the Pulumi preview and the operator decide alike", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let context: ReconcileContext;
  let kubeconfig: string;
  let work: string;
  let world: WorldNamespaces | undefined;
  const namespaces = suiteNamespaces();

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
    await removeLicence(client);
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
    kubeconfig = readFileSync(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "utf8");
    work = await mkdtemp(join(tmpdir(), "navique-decisions-"));
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      if (context) await namespaces.discard(context);
      if (client && helm) {
        if (world) await removeWorldLeftovers(client, world);
        await resetCapabilities(client, helm, CAPABILITIES, { crds: false });
        await removeLicence(client);
      }
      if (work) await rm(work, { recursive: true, force: true });
    } finally {
      await unlock?.();
    }
  }, CAPABILITY_SUITE_SETUP_MS);

  // GIVEN Gateways held back before their operators — one Stalled on a manual field to fill, one waiting
  //       for the SecretsManagement its secretsRef names — under a licence without auto-wiring, the
  //       LiteLLM operator not installed
  // WHEN each front end decides
  // THEN none installs or relies on it: the plan and the preview say only why each is held, exactly as
  //      its conditions say, and the operator's pass writes nothing and installs nothing
  it("install nothing for a resource held back before its operators", async () => {
    await applyLicence(client, testLicenceToken({ caps: { Gateway: 2 } }));
    const ns = await namespaces.create("held");
    const stalled = {
      kind: "Gateway",
      namespace: ns,
      name: "manual",
      spec: { database: { mode: "postgresCluster", postgresClusterRef: { name: "shared" } } },
    };
    const waiting = {
      kind: "Gateway",
      namespace: ns,
      name: "waiting",
      spec: {
        database: { mode: "external", external: { connectionSecretRef: { name: "gateway-db", key: "url" } } },
        secretsRef: { name: "platform" },
      },
    };
    for (const r of [stalled, waiting]) await createResource(client, r.kind, r.namespace, r.name, r.spec);
    const stalledStored = await settle(context, stalled);
    const waitingStored = await settle(context, waiting);
    const stalledLabel = `Gateway ${ns}/manual`;
    const waitingLabel = `Gateway ${ns}/waiting`;
    expect(condition(stalledStored, "Stalled")?.reason).toBe("ManualWiringRequired");
    expect(condition(waitingStored, "Ready")?.reason).toBe("DependencyMissing");
    // Said as the conditions say it: why each is held, and how the stalled one's reference is to be wired.
    const expected = [
      [
        `${stalledLabel}: ${condition(stalledStored, "Stalled")?.message}`,
        `${stalledLabel}: spec.database.postgresClusterRef → PostgresCluster ${ns}/shared: manual: set spec.database.databaseUrlSecretRef`,
      ],
      [`${waitingLabel}: nothing to do until: ${condition(waitingStored, "Ready")?.message}`],
    ];

    const plan = await navique(work, "held.yaml", [declared(stalled), declared(waiting)]);
    expect(plan.lines).toEqual(expected.flat());
    expect(plan.summary).toBe(
      "plan: 2 judged: 0 to change, 0 in place, 1 waiting, 0 refused, 1 stalled; 0 input(s) not judged; exit 1 (docs/plan.md)",
    );
    expect(plan.code).toBe(1);
    const previews = await Promise.all([stalled, waiting].map((r) => pulumiPreview(context, kubeconfig, r)));
    expect(previews).toEqual(expected.map((lines) => ({ changes: false, replaces: [], inPlace: false, lines })));
    for (const stored of [stalledStored, waitingStored]) {
      const pass = await operatorPass(context, stored);
      expect({ resource: resourceLabel(stored), writes: pass.writes, events: pass.events }).toEqual({
        resource: resourceLabel(stored),
        writes: [],
        events: [],
      });
    }
    expect(await helm.status(LITELLM_OPERATOR.release.name, LITELLM_OPERATOR.release.namespace)).toBeUndefined();
  });

  // GIVEN every sample of every registered kind, placed so that each converges (the samples are each
  //       other's references), reconciled until no pass asks for a requeue
  // WHEN each front end decides on it as declared
  // THEN all three say unchanged: `navique plan` prints nothing and exits 0, the provider's diff finds no
  //      change and its in-place check skips the preview (whose engine would say nothing either), and an
  //      operator pass writes nothing
  // WHEN its spec changes (to the next sample of its kind)
  // THEN all three say "to change" on that resource: the plan exits 2 naming the change, the provider's diff
  //      is an update and its preview prints the plan's lines, and the operator's pass on the new spec writes
  it("agree on every sample of every kind: unchanged once converged, a change where its spec changes", async () => {
    await applyLicence(client, testLicenceToken(LICENCE));
    for (const entry of CAPABILITIES) await context.installer.ensure(entry.name);
    const placed = await createWorldNamespaces(namespaces);
    world = placed;
    const samples = placeSamples(placed);
    await prepareWorld(client, placed);
    for (const s of samples) await createResource(client, s.kind, s.namespace, s.name, s.spec);
    await converge(context, placed);

    // Unchanged: the plan, the preview and the operator, each on every sample.
    const plan = await navique(work, "converged.yaml", samples.map(declared));
    expect({ code: plan.code, lines: plan.lines }).toEqual({ code: 0, lines: [] });
    expect(plan.summary).toBe(
      `plan: ${samples.length} judged: 0 to change, ${samples.length} in place, 0 waiting, 0 refused, 0 stalled; 0 input(s) not judged; exit 0 (docs/plan.md)`,
    );
    const previews = await pMap(
      samples,
      async (s) => {
        const { lines, ...decided } = await pulumiPreview(context, kubeconfig, s);
        // The check that skipped the preview's core agrees with the core: it too would print nothing.
        const engine = (await enginePreview(context, s)).lines;
        return { sample: s.label, ...decided, lines, engine };
      },
      { concurrency: PASSES_AT_ONCE },
    );
    expect(previews).toEqual(
      samples.map((s) => ({ sample: s.label, changes: false, replaces: [], inPlace: true, lines: [], engine: [] })),
    );
    const resources = await storedIn(client, Object.values(placed));
    const passes = await pMap(
      resources,
      async (r) => {
        const pass = await operatorPass(context, r);
        return { resource: resourceLabel(r), writes: pass.writes, requeue: pass.requeue, events: pass.events };
      },
      { concurrency: PASSES_AT_ONCE },
    );
    expect(passes).toEqual(
      resources.map((r) => ({ resource: resourceLabel(r), writes: [], requeue: false, events: [] })),
    );

    // To change: every sample's spec changed at once, each front end on each. The operator, given the new
    // spec, acts on it: its pass writes (at the least its status, now about that spec).
    const changed = samples.map((s) => ({ ...s, spec: changedSpec(s, placed) }));
    const changePlan = await navique(work, "changed.yaml", changed.map(declared));
    expect(changePlan.summary).toBe(
      `plan: ${changed.length} judged: ${changed.length} to change, 0 in place, 0 waiting, 0 refused, 0 stalled; 0 input(s) not judged; exit 2 (docs/plan.md)`,
    );
    expect(changePlan.code).toBe(2);
    const changePreviews = await pMap(changed, (s) => pulumiPreview(context, kubeconfig, s), {
      concurrency: PASSES_AT_ONCE,
    });
    changed.forEach((s, i) => {
      const preview = changePreviews[i];
      const planned = about(changePlan.lines, s.label);
      expect({ sample: s.label, names: planned.some((l) => l.startsWith(`${s.label}: change `)) }).toEqual({
        sample: s.label,
        names: true,
      });
      expect({ sample: s.label, changes: preview?.changes, inPlace: preview?.inPlace }).toEqual({
        sample: s.label,
        changes: true,
        inPlace: false,
      });
      expect({ sample: s.label, lines: about(preview?.lines ?? [], s.label) }).toEqual({
        sample: s.label,
        lines: planned,
      });
    });
    // Every line the plan printed, the previews printed too (a Stack's members' among them), and no other.
    expect(changePreviews.flatMap((p) => p.lines).sort()).toEqual([...changePlan.lines].sort());
    for (const s of changed) {
      const module = moduleOf(context, s.kind);
      await client.custom.patchNamespacedCustomObject(
        {
          group: API_GROUP,
          version: API_VERSION,
          plural: module.definition.plural,
          namespace: s.namespace,
          name: s.name,
          body: [{ op: "replace", path: "/spec", value: s.spec }],
        },
        undefined,
      );
    }
    const changePasses = await pMap(
      changed,
      async (s) => {
        const stored = await readStoredResource(client, s.kind, s.namespace, s.name);
        if (!stored) throw new Error(`${s.label} is gone`);
        return { sample: s.label, wrote: (await operatorPass(context, stored)).writes.length > 0 };
      },
      { concurrency: PASSES_AT_ONCE },
    );
    expect(changePasses).toEqual(changed.map((s) => ({ sample: s.label, wrote: true })));
  }, 600_000);
});
