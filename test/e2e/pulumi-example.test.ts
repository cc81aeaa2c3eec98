import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { OWNERSHIP_MARKS } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CERT_MANAGER } from "../../lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import { type KubeClient, orUndefined } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_CHARTS,
  lockCapabilities,
  releaseRecords,
  resetCapabilities,
  testClient,
  testHelm,
} from "../support/capabilities.js";
import {
  EXAMPLE_GRANT,
  grantExampleAdoption,
  playExampleCnpg,
  prepareExampleCluster,
  removeExampleNamespaces,
} from "../support/example-cluster.js";
import { readCnpgCluster, readPostgresCluster } from "../support/postgres.js";
import { TYPESCRIPT_SOURCES_ENV } from "../support/typescript-sources.js";

const EXAMPLE = join(process.cwd(), "examples", "pulumi");

// examples/pulumi run as users run it: the real pulumi CLI and engine, the TypeScript program from its
// project directory through the Node.js language host, the dynamic provider in its own process, a local
// file backend, charts from the fixture mirror. The test plays the CNPG controller (Cluster status) and
// the user (the adopted cluster `shared` and its Secret, made beforehand).
describe("the Pulumi example: a managed and an adopted PostgresCluster", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: () => Promise<void>;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let stopPlaying: (() => void) | undefined;

  const pulumi = async (...args: string[]) =>
    (await run("pulumi", [...args, "--non-interactive"], { cwd: EXAMPLE, env })).stdout;

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    await prepareExampleCluster(client, helm);
    stopPlaying = playExampleCnpg(client);

    work = await mkdtemp(join(tmpdir(), "navique-pulumi-example-"));
    const environment = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "example-passphrase" });
    env = {
      ...environment.env,
      KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG,
      NAVIQUE_CHART_SOURCE: `dir:${FIXTURE_CHARTS}`,
      ...TYPESCRIPT_SOURCES_ENV,
    };
    await pulumi("stack", "init", "example");
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    stopPlaying?.();
    if (client && helm) {
      await removeExampleNamespaces(client, helm);
      await resetCapabilities(client, helm, [CLOUDNATIVE_PG, CERT_MANAGER], { crds: false });
    }
    if (work) await rm(work, { recursive: true, force: true });
    await unlock?.();
  });

  it("without the data namespace's ReferenceGrant, the preview warns with the grant to create", async () => {
    await client.custom.deleteNamespacedCustomObject({
      group: "core.navique.com",
      version: "v1alpha1",
      plural: "referencegrants",
      ...EXAMPLE_GRANT,
    });
    try {
      const preview = await pulumi("preview");
      expect(preview).toMatch(
        /warning: PostgresCluster navique-example-apps\/chat-db: reference not permitted: spec\.adopt\.clusterRef \(namespace navique-example-data\) and spec\.adopt\.credentialsSecretRef \(namespace navique-example-data\) are not granted by the referenced namespace: nothing was read, copied or created there\. Create a ReferenceGrant in namespace navique-example-data from group core\.navique\.com kind PostgresCluster namespace navique-example-apps to group postgresql\.cnpg\.io kind Cluster name shared, and to group "" kind Secret name shared-app/,
      );
      expect(preview).not.toContain("copy the credentials of navique-example-data/shared-app");
    } finally {
      await grantExampleAdoption(client);
    }
  });

  it("previews every decision, with its evidence, before anything changes", async () => {
    const preview = await pulumi("preview");
    expect(preview).toContain(
      "PostgresCluster navique-example-platform/platform-db: capability cert-manager: install cert-manager v1.21.1 as release cert-manager/cert-manager (no release cert-manager/cert-manager;",
    );
    expect(preview).toContain(
      "PostgresCluster navique-example-platform/platform-db: capability cloudnative-pg: install cloudnative-pg 0.29.0 as release cnpg-system/cloudnative-pg",
    );
    expect(preview).toContain(
      "PostgresCluster navique-example-platform/platform-db: apply CNPG Cluster navique-example-platform/platform-db (1 instance(s), 10Gi)",
    );
    expect(preview).toContain(
      "PostgresCluster navique-example-apps/chat-db: copy the credentials of navique-example-data/shared-app into Secret navique-example-apps/chat-db-adopted-credentials",
    );
    expect(preview).toContain(
      "PostgresCluster navique-example-apps/chat-db: apply CNPG Database navique-example-data/shared-librechat beside the adopted cluster",
    );
    expect(preview).not.toContain("would run helm");
    // Without helm on PATH the preview says, on the component, that `up` would fail installing the operators.
    const helmDirectory = dirname((await toolchainPaths()).helm);
    const path = (env.PATH ?? "").split(":").filter((entry) => entry !== helmDirectory);
    const withoutHelm = (
      await run("pulumi", ["preview", "--non-interactive"], { cwd: EXAMPLE, env: { ...env, PATH: path.join(":") } })
    ).stdout;
    expect(withoutHelm).toContain(
      "warning: PostgresCluster navique-example-platform/platform-db: `pulumi up` would run helm for its capability operators: no helm binary: none configured (the component's `helm` argument, or --helm) and none named helm on PATH; install helm v4 or point `helm` at it",
    );
    // The adopted one installs nothing: it needs no helm.
    expect(withoutHelm).not.toContain("navique-example-apps/chat-db: `pulumi up` would run helm");
    // Nothing happened.
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
    expect(await readPostgresCluster(client, "navique-example-platform", "platform-db")).toBeUndefined();
  });

  it("up: both Ready, operators owned, the password a secret in the state and nowhere in plain text", async () => {
    const up = await pulumi("up", "--yes", "--skip-preview");
    expect(up).toContain("navique:PostgresCluster");
    const outputs = JSON.parse(await pulumi("stack", "output", "--json")) as Record<string, unknown>;
    expect(outputs).toMatchObject({
      platformHost: "platform-db-rw.navique-example-platform.svc",
      platformPassword: "[secret]",
      chatHost: "shared-rw.navique-example-data.svc",
      chatProvenance: "adopted",
      platformCapabilities: [
        { name: "cert-manager", provenance: "owned", chartVersion: "v1.21.1" },
        { name: "cloudnative-pg", provenance: "owned", chartVersion: "0.29.0" },
      ],
    });
    const secret = await client.core.readNamespacedSecret({
      name: "platform-db-credentials",
      namespace: "navique-example-platform",
    });
    const password = Buffer.from(secret.data?.password ?? "", "base64").toString();
    const revealed = JSON.parse(await pulumi("stack", "output", "--json", "--show-secrets")) as {
      platformPassword: string;
    };
    expect(revealed.platformPassword).toBe(password);
    const stateDir = join(work, "state", ".pulumi", "stacks", "navique-example");
    for (const file of await readdir(stateDir)) {
      const state = readFileSync(join(stateDir, file), "utf8");
      expect(state).not.toContain(password);
      expect(state).not.toContain("user-made-password");
    }
    expect((await releaseRecords(client, "cnpg-system", "cloudnative-pg"))[0]?.metadata?.labels).toMatchObject(
      OWNERSHIP_MARKS,
    );
    const status = (await readPostgresCluster(client, "navique-example-apps", "chat-db"))?.status;
    expect(status?.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
    // The chart mirror is recorded relative to the project, not as a path of the machine; the one from
    // $NAVIQUE_CHART_SOURCE is the program's argument here.
    const exported = await pulumi("stack", "export");
    expect(exported).not.toContain(FIXTURE_CHARTS);
    expect(exported).toContain(`"chartSource": "dir:${relative(EXAMPLE, FIXTURE_CHARTS)}"`);
  });

  it("a no-op preview of the managed and the adopted cluster in place prints no decision line", async () => {
    const preview = await pulumi("preview", "--expect-no-changes");
    expect(preview).not.toContain("PostgresCluster navique-example-platform/platform-db:");
    expect(preview).not.toContain("PostgresCluster navique-example-apps/chat-db:");
    expect(preview).toContain("unchanged");
  });

  it("destroy: finalizes both, keeps the managed data (Retain), leaves the adopted cluster, releases the operators; removes the namespace it made that nothing holds, says why it leaves the other", async () => {
    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    // Both namespaces were made by their component's create (the example's cluster has neither).
    expect(destroy).toContain(
      "PostgresCluster navique-example-apps/chat-db: namespace navique-example-apps, which its create made, deleted",
    );
    expect(destroy).toContain(
      "PostgresCluster navique-example-platform/platform-db: namespace navique-example-platform, which its create made, is left: it still holds CNPG Cluster navique-example-platform/platform-db",
    );
    const apps = await orUndefined(client.core.readNamespace({ name: "navique-example-apps" }));
    expect(apps === undefined || apps.metadata?.deletionTimestamp !== undefined).toBe(true);
    expect(await readPostgresCluster(client, "navique-example-platform", "platform-db")).toBeUndefined();
    expect(await readPostgresCluster(client, "navique-example-apps", "chat-db")).toBeUndefined();
    expect(await readCnpgCluster(client, "navique-example-platform", "platform-db")).toBeDefined();
    expect(await readCnpgCluster(client, "navique-example-data", "shared")).toBeDefined();
    expect(await releaseRecords(client, "cnpg-system", "cloudnative-pg")).toHaveLength(0);
  });
});
