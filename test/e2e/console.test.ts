import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { parseAllDocuments } from "yaml";
import { buildApp } from "../../examples/cdk8s/app.js";
import { API_GROUP, API_VERSION } from "../../lib/api/group.js";
import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import { CATALOG } from "../../lib/catalog/catalog.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import { CONSOLE_VIEWER_ROLE } from "../../lib/console/console-auth.js";
import { recordEvent } from "../../lib/engine/report.js";
import {
  MANAGEMENT_PLANE_KIND,
  MANAGEMENT_PLANE_NAME,
  MANAGEMENT_PLANE_PLURAL,
} from "../../lib/kinds/management-plane/schema.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { readStatus } from "../../lib/status/read-status.js";
import { artifactsDirectory, launchBrowser } from "../support/browser.js";
import { CAPABILITY_SUITE_SETUP_MS, lockCapabilities, testClient, testHelm } from "../support/capabilities.js";
import { condition, createTestNamespace, eventually } from "../support/cluster.js";
import {
  EXAMPLE_APPLICATIONS,
  EXAMPLE_DATASTORES,
  EXAMPLE_SECRETS,
  prepareExampleCluster,
  removeExampleNamespaces,
} from "../support/example-cluster.js";
import { discardNamespace } from "../support/namespace-content.js";
import { startOperatorProcess, stopOperatorProcess } from "../support/operator-process.js";
import { outputContains } from "../support/two-operators.js";

const KINDS = REGISTRY.kinds.map((module) => module.definition.kind);
const PLANE = { group: API_GROUP, version: API_VERSION, plural: MANAGEMENT_PLANE_PLURAL, name: MANAGEMENT_PLANE_NAME };

/** `Kind namespace/name` of the example's resources, as the graph names its boxes. */
const EXAMPLE_RESOURCES = [EXAMPLE_SECRETS, ...EXAMPLE_DATASTORES, ...EXAMPLE_APPLICATIONS];

// The console as users reach it: `navique operator` serving it (as every replica of the chart does), a
// real headless Chromium signing in with ServiceAccount tokens the local plane's apiserver issues, checked
// by the real TokenReview and SubjectAccessReview. The cluster holds the example platform as
// examples/cdk8s synthesizes it, applied as a GitOps tool would — the operator's own objects too: the
// ManagementPlane and the console's viewer ClusterRole. The operator reconciles only a namespace of its
// own (--watch-namespaces): it serves the console and installs nothing, so the example's resources stay
// as applied (not yet reconciled) while the pages show them. The example's namespaces and the
// ManagementPlane are shared with other suites: under the capability lock. Screenshots of every page are
// left in test-artifacts/console/.
describe("the console", () => {
  let client: KubeClient;
  let helm: HelmCli;
  let unlock: (() => Promise<void>) | undefined;
  let work = "";
  let ns = "";
  let operator: { readonly process: ChildProcess; readonly output: () => string } | undefined;
  let url = "";
  let browser: Browser | undefined;
  let shots = "";
  const tokens = { reader: "", stranger: "" };

  /** The ManagementPlane's spec, as its owner sets it with kubectl. */
  const setPlane = (spec: { readonly refreshSeconds: number; readonly enabled: boolean }) => {
    const plane = {
      apiVersion: `${API_GROUP}/${API_VERSION}`,
      kind: MANAGEMENT_PLANE_KIND,
      metadata: { name: MANAGEMENT_PLANE_NAME },
      spec,
    };
    return client.apply(plane, { fieldManager: "kubectl" });
  };

  const readerBinding = () => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `${ns}-reader` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: CONSOLE_VIEWER_ROLE },
    subjects: [{ kind: "ServiceAccount", name: "reader", namespace: ns }],
  });

  const token = async (name: string) =>
    (
      await client.core.createNamespacedServiceAccountToken({
        name,
        namespace: ns,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status?.token ?? "";

  const open = (options?: Parameters<Browser["newPage"]>[0]) => {
    if (!browser) throw new Error("the browser did not start: see the suite's setup");
    return browser.newPage(options);
  };

  const signIn = async (page: Page, value: string) => {
    await page.goto(`${url}/login`);
    await page.fill("#token", value);
    await Promise.all([page.waitForURL(`${url}/`), page.click("button[type=submit]")]);
  };

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    // The example's cluster as its users find it: the data namespace's own CloudNativePG cluster, which
    // the example adopts, and its grants.
    await prepareExampleCluster(client, helm);
    work = await mkdtemp(join(tmpdir(), "navique-console-"));
    buildApp(join(work, "synth")).synth();
    const synthesized = await readFile(join(work, "synth", "navique-example.yaml"), "utf8");
    for (const document of parseAllDocuments(synthesized)) {
      const object = document.toJS() as { kind: string; apiVersion: string; metadata: { name: string } };
      const console = object.kind === MANAGEMENT_PLANE_KIND || object.metadata.name === CONSOLE_VIEWER_ROLE;
      if (object.kind === "Namespace" || object.kind === "ReferenceGrant" || KINDS.includes(object.kind) || console)
        await client.apply(object, { fieldManager: "argocd-controller" });
    }
    // No page reloads itself while the browser reads it.
    await setPlane({ refreshSeconds: 0, enabled: true });

    ns = (await createTestNamespace("console")).name;
    for (const name of ["reader", "stranger"])
      await client.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    // As the chart's NOTES say: the reader is bound to the viewer role, the stranger to nothing.
    await client.apply(readerBinding(), { fieldManager: "kubectl" });
    tokens.reader = await token("reader");
    tokens.stranger = await token("stranger");

    operator = startOperatorProcess({ extraArgs: ["--watch-namespaces", ns] });
    await outputContains(operator.process, operator.output, /serving the console on \S+/);
    url = /serving the console on (\S+)/.exec(operator.output())?.[1] ?? "";
    browser = await launchBrowser();
    shots = await artifactsDirectory("console");
  }, CAPABILITY_SUITE_SETUP_MS);

  afterAll(async () => {
    try {
      await browser?.close();
      if (operator) await stopOperatorProcess(operator.process);
      if (client) {
        if (ns) await client.delete(readerBinding());
        if (ns) await discardNamespace(client, ns);
        await removeExampleNamespaces(client, helm);
        // The operator's objects of the example go with it: the suites that install the chart make their own.
        await client.delete({
          apiVersion: `${API_GROUP}/${API_VERSION}`,
          kind: MANAGEMENT_PLANE_KIND,
          metadata: { name: MANAGEMENT_PLANE_NAME },
        });
        await client.delete({
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRole",
          metadata: { name: CONSOLE_VIEWER_ROLE },
        });
      }
      if (work) await rm(work, { recursive: true, force: true });
    } finally {
      await unlock?.();
    }
  }, CAPABILITY_SUITE_SETUP_MS);

  it("writes on the ManagementPlane that it serves the console", async () => {
    // For the generation it was given: a condition left by an earlier run is not the answer.
    const ready = await eventually("the ManagementPlane's Ready condition for its generation", async () => {
      const stored = (await client.custom.getClusterCustomObject(PLANE)) as {
        metadata: { generation?: number };
        status?: { observedGeneration?: number; conditions?: unknown[] };
      };
      const found = condition(stored as never, "Ready");
      return stored.status?.observedGeneration === stored.metadata.generation ? found : undefined;
    });
    expect(ready).toMatchObject({ status: "True", reason: "Serving" });
    expect(ready.message).toContain("every operator replica serves the console on 127.0.0.1:0");
  });

  it("refuses a request without a token, and one the cluster does not accept", async () => {
    const bare = await fetch(`${url}/resources`, { headers: { Accept: "application/json" } });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain("Bearer");
    expect(await bare.text()).toContain("a token is needed");

    // A cluster token is never taken from a link, where it would stay in histories and logs.
    const linked = await fetch(`${url}/login?key=${tokens.reader}`, { redirect: "manual" });
    expect(linked.status).toBe(200);
    expect(linked.headers.get("set-cookie")).toBeNull();

    const forged = await fetch(`${url}/resources`, {
      headers: { Authorization: "Bearer not-a-token-of-this-cluster" },
    });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toContain("the cluster does not accept this token");

    const page = await open();
    await page.goto(`${url}/`);
    // A browser without a token is sent to the sign-in form.
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await page.isVisible("#token")).toBe(true);
    await page.screenshot({ path: join(shots, "login.png") });
    await page.fill("#token", "not-a-token-of-this-cluster");
    const [refusal] = await Promise.all([page.waitForResponse(`${url}/login`), page.click("button[type=submit]")]);
    expect(refusal.status()).toBe(401);
    expect(await page.textContent("[role=alert]")).toContain("the cluster does not accept this token");
    // Nothing was kept: the next page still asks for a token.
    await page.goto(`${url}/`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.close();
  });

  it("refuses a user the cluster authenticates but does not allow to get the ManagementPlane", async () => {
    const page = await open();
    await page.goto(`${url}/login`);
    await page.fill("#token", tokens.stranger);
    const [response] = await Promise.all([page.waitForResponse(`${url}/login`), page.click("button[type=submit]")]);
    expect(response.status()).toBe(403);
    const alert = await page.textContent("[role=alert]");
    expect(alert).toContain(
      `system:serviceaccount:${ns}:stranger may not get managementplanes.core.navique.com navique`,
    );
    expect(alert).toContain(`bind the ClusterRole ${CONSOLE_VIEWER_ROLE}`);
    await page.screenshot({ path: join(shots, "not-allowed.png") });
    await page.close();
  });

  it("shows a reader every page: resources, capabilities, the example platform's graph, the licence, Events", async () => {
    const page = await open({ viewport: { width: 1400, height: 900 } });
    await signIn(page, tokens.reader);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.textContent("header")).toContain(`system:serviceaccount:${ns}:reader`);
    expect(await page.textContent("main")).toContain("Resources Ready");
    await page.screenshot({ path: join(shots, "overview.png"), fullPage: true });

    // What the console shows is what `navique status` reads: the same function, read here apart.
    const report = await readStatus(client, { now: new Date() });
    await page.goto(`${url}/resources`);
    const rows = await page.$$eval("main table:first-of-type > tbody > tr", (trs) =>
      trs.map((tr) => [...tr.children].slice(0, 5).map((td) => td.textContent?.trim() ?? "")),
    );
    for (const label of EXAMPLE_RESOURCES) {
      const [kind, where] = label.split(" ");
      const [namespace, name] = (where ?? "").split("/");
      const row = rows.find((r) => r[0] === kind && r[1] === namespace && r[2] === name);
      const reported = report.resources.find((r) => r.kind === kind && r.namespace === namespace && r.name === name);
      expect({ label, row: row?.slice(0, 3), reason: row?.[4] }).toEqual({
        label,
        row: [kind, namespace, name],
        reason: reported?.reason,
      });
    }
    await page.screenshot({ path: join(shots, "resources.png"), fullPage: true });

    await page.goto(`${url}/capabilities`);
    const capabilities = await page.$$eval("main tbody tr", (trs) =>
      trs.map((tr) => [tr.children[0]?.textContent?.trim(), tr.children[1]?.textContent?.trim()]),
    );
    expect(capabilities).toEqual(report.capabilities.map((c) => [c.name, c.state]));
    expect(capabilities.map(([name]) => name)).toEqual([...CATALOG.keys()]);
    await page.screenshot({ path: join(shots, "capabilities.png"), fullPage: true });

    await page.goto(`${url}/graph`);
    const boxes = await page.$$eval("svg g.node", (nodes) => nodes.map((n) => n.getAttribute("data-id")));
    for (const label of EXAMPLE_RESOURCES) expect(boxes).toContain(label);
    const arrows = await page.$$eval("svg g.edge", (edges) =>
      edges.map((e) => `${e.getAttribute("data-from")} -> ${e.getAttribute("data-to")}`),
    );
    const expected = report.resources.flatMap((r) => [
      ...r.dependsOn.map((d) => `${r.kind} ${r.namespace}/${r.name} -> ${d.kind} ${d.namespace}/${d.name}`),
      ...r.needs.map((c) => `${r.kind} ${r.namespace}/${r.name} -> capability ${c}`),
    ]);
    expect(arrows.sort()).toEqual(expected.sort());
    // The example's gateway waits on its database, and LibreChat on the gateway, across namespaces.
    expect(arrows).toContain(
      "Gateway navique-example-platform/llm -> PostgresCluster navique-example-platform/platform-db",
    );
    expect(arrows).toContain("ChatUI navique-example-apps/librechat -> Gateway navique-example-platform/llm");
    await page.screenshot({ path: join(shots, "graph.png"), fullPage: true });

    await page.goto(`${url}/licence`);
    expect(await page.textContent("main")).toContain(report.licence.edition);
    const caps = await page.$$eval("main table:nth-of-type(2) tbody tr", (trs) =>
      trs.map((tr) => tr.children[0]?.textContent?.trim()),
    );
    expect(caps).toEqual(report.licence.caps.map((c) => c.kind));
    await page.screenshot({ path: join(shots, "licence.png"), fullPage: true });

    // An Event as the operator records it (lib/engine/report.ts), played here: the operator of this suite
    // reconciles none of the example's resources.
    const gateway = (await client.custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: "gateways",
      namespace: "navique-example-platform",
      name: "llm",
    })) as { kind: string; metadata: { name: string; namespace: string; uid: string } };
    const note = `console test ${ns}: <b>not markup</b>`;
    await recordEvent(client, gateway, { type: "Warning", reason: "ConsoleCheck", message: note }, new Date());
    // The reading of the pages above is kept a few seconds: the Event shows in the next one.
    await eventually("the Event on the Events page", async () => {
      await page.goto(`${url}/events`);
      return (await page.textContent("main"))?.includes(note) ? true : undefined;
    });
    const row = await page.$$eval("main tbody tr", (trs) =>
      trs.map((tr) => [...tr.children].slice(1, 4).map((td) => td.textContent?.trim())),
    );
    expect(row).toContainEqual(["Warning", "ConsoleCheck", "Gateway navique-example-platform/llm"]);
    expect(await page.textContent("main")).toMatch(/the operator recorded within the last 60 minutes/i);
    await page.screenshot({ path: join(shots, "events.png"), fullPage: true });

    // Signed out, the cookie is gone: the next page asks for a token again.
    await Promise.all([page.waitForURL(`${url}/login`), page.click("form.signout button")]);
    await page.goto(`${url}/resources`);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.close();
  });

  it("answers 503 while the ManagementPlane turns the console off, and serves again once it is on", async () => {
    const headers = { Authorization: `Bearer ${tokens.reader}` };
    await setPlane({ refreshSeconds: 0, enabled: false });
    try {
      const off = await eventually("the console to be turned off", async () => {
        const response = await fetch(`${url}/`, { headers });
        return response.status === 503 ? response.text() : undefined;
      });
      expect(off).toContain("The console is turned off: the ManagementPlane navique says spec.enabled: false");
      const disabled = await eventually(
        "the ManagementPlane's status to say so",
        async () => {
          const stored = (await client.custom.getClusterCustomObject(PLANE)) as never;
          const ready = condition(stored, "Ready");
          return ready?.reason === "Disabled" ? ready : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(disabled.status).toBe("False");
    } finally {
      await setPlane({ refreshSeconds: 0, enabled: true });
    }
    await eventually("the console to serve again", async () =>
      (await fetch(`${url}/`, { headers })).status === 200 ? true : undefined,
    );
  });

  it("navique console serves the same pages on this machine, to a browser holding the key it printed", async () => {
    const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
    const cli = join(process.cwd(), "lib", "cli", "main.ts");
    let output = "";
    const child = spawn(
      tsx,
      [cli, "console", "--kubeconfig", process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "--address", "127.0.0.1:0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await outputContains(child, () => output, /\/login\?key=\S+/);
      const link = /(http:\S+\/login\?key=\S+)/.exec(output)?.[1] ?? "";
      const base = new URL(link).origin;
      expect((await fetch(`${base}/`, { headers: { Authorization: "Bearer wrong-key" } })).status).toBe(401);
      const page = await open();
      await page.goto(link);
      expect(new URL(page.url()).pathname).toBe("/");
      await page.goto(`${base}/graph`);
      const boxes = await page.$$eval("svg g.node", (nodes) => nodes.map((n) => n.getAttribute("data-id")));
      for (const label of EXAMPLE_RESOURCES) expect(boxes).toContain(label);
      await page.close();
      // The key is never written to stderr, where logs are kept: only the link on stdout holds it.
      const key = new URL(link).searchParams.get("key") ?? "";
      expect(output.split(link).join("")).not.toContain(key);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
