import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { API_GROUP, API_GROUP_VERSION, API_VERSION } from "../../lib/api/group.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { plainGet } from "../../lib/cluster/plain-get.js";
import type { EngineResource } from "../../lib/engine/kind-module.js";
import { previewDesired } from "../../lib/engine/preview.js";
import { createReconcileContext, type ReconcileContext } from "../../lib/reconcile/context.js";
import { inPlace } from "../../providers/pulumi/in-place.js";
import { create, destroy, diff, read, update } from "../../providers/pulumi/runtime.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import { eventually } from "../support/cluster.js";
import { discardNamespace, suiteNamespaces } from "../support/namespace-content.js";
import { createConnectionSecret, readPostgresCluster } from "../support/postgres.js";
import { finalizeEveryKind, reconcileUntil, registered } from "../support/resources.js";

/** A spec as the component hands it on: parsed, the defaults written out. */
const externalSpec = (secret: string) =>
  registered("PostgresCluster").definition.spec.parse({
    mode: "external",
    external: { connectionSecretRef: { name: secret } },
  });

// The Pulumi runtime's own code, called in-process as Pulumi's dynamic-provider process calls it, on the
// local plane: read (what `pulumi refresh` runs), update after drift, the namespace a create made and
// what destroy does with it, and the engine's preview of a resource in place. test/e2e/pulumi-refresh
// runs the same through the real pulumi CLI. PostgresClusters count against the cluster-wide caps.
describe("the Pulumi runtime: refresh, namespaces, no-op previews", () => {
  let client: KubeClient;
  let context: ReconcileContext;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const made: string[] = [];

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    const helm = await testHelm();
    // PostgresClusters left by a run that died count against the Community cap: finalized first.
    await resetCapabilities(client, helm, [], { crds: false });
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) {
      for (const ns of made) {
        if (!(await orUndefined(client.core.readNamespace({ name: ns })))) continue;
        await finalizeEveryKind(context, ns);
        await discardNamespace(client, ns);
      }
      await namespaces.discard(context);
    }
    await unlock?.();
  });

  const inputs = (namespace: string, name: string, secret = "pg") => ({
    kind: "PostgresCluster",
    namespace,
    name,
    spec: externalSpec(secret),
    kubeconfig: process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
    timeoutSeconds: 60,
  });

  it("read brings back the live spec and outputs after drift; the diff sees it; update writes the program's spec back", async () => {
    const ns = await namespaces.create("runtime-read");
    await createConnectionSecret(client, ns);
    await client.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: "pg-other" }, stringData: { host: "other.internal", username: "o", password: "po" } },
    });
    const program = inputs(ns, "db");
    const { outs } = await create(program);
    expect(outs).toMatchObject({ host: "pg.internal", password: "p" });
    // A namespace it found: nothing recorded, nothing ever deleted.
    expect(outs).not.toHaveProperty("createdNamespace");

    // Nothing drifted: read answers what the state holds, and the diff sees no change.
    const same = await read(outs as never);
    expect(same.props).toEqual(outs);
    expect((await diff(same.props as never, program as never)).changes).toBe(false);

    // kubectl patch, then the operator's pass (in-process here) writes the status it leads to.
    await client.custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: "postgresclusters",
        namespace: ns,
        name: "db",
        // As `kubectl patch --type json` sends it.
        body: [{ op: "replace", path: "/spec/external/connectionSecretRef/name", value: "pg-other" }],
      },
      undefined,
    );
    await reconcileUntil(
      context,
      "PostgresCluster",
      ns,
      "db",
      (_o, r) => (r.status as { host?: string })?.host === "other.internal",
    );

    const refreshed = await read(outs as never);
    expect(refreshed.id).toBe(`${ns}/db`);
    expect(refreshed.props).toMatchObject({
      spec: { mode: "external", type: "cnpg", external: { connectionSecretRef: { name: "pg-other" } } },
      host: "other.internal",
      password: "po",
    });
    expect(refreshed.inputs).toMatchObject({ spec: { external: { connectionSecretRef: { name: "pg-other" } } } });
    expect(refreshed.inputs).not.toHaveProperty("host");
    const changed = await diff(refreshed.props as never, program as never);
    expect(changed).toMatchObject({ changes: true, replaces: [] });

    const { outs: back } = await update(refreshed.props as never, program as never);
    expect(back).toMatchObject({ host: "pg.internal" });
    expect((await readPostgresCluster(client, ns, "db"))?.spec.external?.connectionSecretRef.name).toBe("pg");

    await destroy(back as never);
    // Gone: read answers no id, and Pulumi drops it from the state.
    expect(await read(back as never)).toEqual({});
  });

  it("a namespace the create made is recorded; destroy deletes it once nothing is left, leaves it while something is", async () => {
    const suffix = randomBytes(3).toString("hex");
    const [emptied, kept] = [`runtime-emptied-${suffix}`, `runtime-kept-${suffix}`];
    made.push(emptied, kept);
    // The Secret, put there as External Secrets would once the namespace exists; the create waits for it.
    const created = await Promise.all(
      [emptied, kept].map(async (ns) => {
        const pending = create(inputs(ns, "db"));
        await eventually(`namespace ${ns}`, async () => orUndefined(client.core.readNamespace({ name: ns })));
        await createConnectionSecret(client, ns);
        return (await pending).outs;
      }),
    );
    for (const outs of created) expect(outs).toMatchObject({ createdNamespace: true, host: "pg.internal" });
    // An update keeps what the state says of the namespace.
    const [first, second] = created as [Record<string, unknown>, Record<string, unknown>];
    const { outs: updated } = await update(first as never, inputs(emptied, "db") as never);
    expect(updated).toMatchObject({ createdNamespace: true });

    await client.core.deleteNamespacedSecret({ name: "pg", namespace: emptied });
    await destroy(updated as never);
    const gone = await orUndefined(client.core.readNamespace({ name: emptied }));
    expect(gone === undefined || gone.metadata?.deletionTimestamp !== undefined).toBe(true);

    await destroy(second as never);
    expect((await client.core.readNamespace({ name: kept })).metadata?.deletionTimestamp).toBeUndefined();
    expect(await readPostgresCluster(client, kept, "db")).toBeUndefined();
  });

  it("the preview of a resource in place has no decision line; a Secret the same run creates first is not reported missing", async () => {
    const ns = await namespaces.create("runtime-preview");
    await createConnectionSecret(client, ns);
    const desired = (name: string, secret: string): EngineResource => ({
      apiVersion: API_GROUP_VERSION,
      kind: "PostgresCluster",
      metadata: { name, namespace: ns },
      spec: externalSpec(secret),
    });
    const { outs } = await create(inputs(ns, "db"));
    const inPlace = await previewDesired(context, desired("db", "pg"));
    expect(inPlace).toMatchObject({ lines: [], inPlace: true, helmFor: [] });

    const waiting = await previewDesired(context, desired("later", "made-here"), {
      createdFirst: [{ kind: "Secret", namespace: ns, name: "made-here" }],
    });
    expect(waiting.lines).toEqual([
      `PostgresCluster ${ns}/later: decided once Secret ${ns}/made-here exists: the same run creates it first`,
    ]);
    const missing = await previewDesired(context, desired("later", "made-here"));
    expect(missing.lines).toEqual([
      `PostgresCluster ${ns}/later: nothing to do until: Secret ${ns}/made-here (spec.external.connectionSecretRef) does not exist: create it with keys host, port, username and password`,
    ]);
    await destroy(outs as never);
  });

  it("a resource in place as declared is known so from one GET without the Kubernetes client; anything else goes the usual way", async () => {
    const ns = await namespaces.create("runtime-in-place");
    await createConnectionSecret(client, ns);
    const { outs } = await create(inputs(ns, "db"));
    const module = registered("PostgresCluster");
    const kubeconfig = readFileSync(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "utf8");
    const declared = { name: "db", namespace: ns, spec: externalSpec("pg") };
    expect(await inPlace(module, kubeconfig, declared)).toBe(true);
    // The program's spec before its defaults are written out: the same resource.
    const unparsed = { mode: "external", external: { connectionSecretRef: { name: "pg" } } };
    expect(await inPlace(module, kubeconfig, { ...declared, spec: unparsed })).toBe(true);
    // Another spec, another name: the preview observes and plans, and prints what would change.
    expect(await inPlace(module, kubeconfig, { ...declared, spec: externalSpec("pg-other") })).toBe(false);
    expect(await inPlace(module, kubeconfig, { ...declared, name: "absent" })).toBe(false);
    // A kubeconfig the plain reader does not understand (an exec plugin): it does not guess.
    const withExec = JSON.parse(kubeconfig) as { users: { user: Record<string, unknown> }[] };
    for (const entry of withExec.users)
      entry.user = { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "false" } };
    const path = `/apis/${API_GROUP_VERSION}/namespaces/${ns}/postgresclusters/db`;
    expect(await plainGet(JSON.stringify(withExec), path)).toBeUndefined();
    expect(await plainGet(kubeconfig, path)).toMatchObject({ metadata: { name: "db", namespace: ns } });

    // Not Ready at its generation (a spec changed by hand, its pass not yet run): not in place.
    await client.custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: "postgresclusters",
        namespace: ns,
        name: "db",
        body: [{ op: "replace", path: "/spec/external/connectionSecretRef/name", value: "pg-other" }],
      },
      undefined,
    );
    expect(await inPlace(module, kubeconfig, { ...declared, spec: externalSpec("pg-other") })).toBe(false);
    await destroy(outs as never);
  });
});
