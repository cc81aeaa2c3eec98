import { checkInput } from "../../lib/api/validation.js";
import { keyAuthenticator } from "../../lib/console/console-auth.js";
import { escapeHtml, html } from "../../lib/console/html.js";
import { consoleCondition, DEFAULT_SETTINGS } from "../../lib/console/management-plane.js";
import { dependencyGraph } from "../../lib/console/pages/dependency-graph.js";
import { eventsPage } from "../../lib/console/pages/events-page.js";
import { overviewPage } from "../../lib/console/pages/overview-page.js";
import { page } from "../../lib/console/pages/page-layout.js";
import { resourcesPage } from "../../lib/console/pages/resources-page.js";
import { ManagementPlaneSpec, managementPlaneName } from "../../lib/kinds/management-plane/schema.js";
import { resource, snapshot } from "../support/status-reports.js";

const HOSTILE = `<script>alert("x")</script>`;

describe("the console's pages", () => {
  it("show what the cluster holds as text, never as markup: a hostile message or name is escaped", () => {
    const hostile = snapshot([
      resource("Gateway", "apps", "llm", {
        ready: "False",
        reason: "Waiting",
        message: HOSTILE,
        conditions: [{ type: "Ready", status: "False", reason: "Waiting", message: HOSTILE }],
      }),
    ]);
    const text = resourcesPage(hostile).text;
    expect(text).not.toContain("<script>");
    expect(text).toContain(escapeHtml(HOSTILE));
    expect(escapeHtml(HOSTILE)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    const events = eventsPage({
      ...hostile,
      events: [
        {
          time: "2026-12-06T20:00:00.000Z",
          type: "Warning",
          reason: "R",
          regarding: `Gateway apps/${HOSTILE}`,
          note: HOSTILE,
        },
      ],
    }).text;
    expect(events).not.toContain("<script>");
  });

  it("put an inner template in as it is, and arrays of them, but escape every other value", () => {
    expect(html`<p>${html`<b>${"<i>"}</b>`}${["<", html`<br>`]}${undefined}${false}</p>`.text).toBe(
      "<p><b>&lt;i&gt;</b>&lt;<br></p>",
    );
  });

  it("are whole documents that load no script, reload as the ManagementPlane says, and mark the current page", () => {
    const text = page({ title: "Resources", current: "/resources", user: "alice", refreshSeconds: 30 }, html`<p>x</p>`);
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).not.toMatch(/<script/i);
    expect(text).toContain('<meta http-equiv="refresh" content="30">');
    expect(text).toContain('<a href="/resources" aria-current="page">Resources</a>');
    expect(page({ title: "Sign in" }, html``)).not.toContain("<nav");
  });

  it("draw an arrow from each resource to what it depends on and to each capability it needs; a missing one dashed", () => {
    const graph = dependencyGraph(
      snapshot([
        resource("PostgresCluster", "data", "db", { needs: ["cloudnative-pg"] }),
        resource("Gateway", "apps", "llm", {
          dependsOn: [
            { kind: "PostgresCluster", namespace: "data", name: "db", field: "database.postgresClusterRef" },
            { kind: "Observability", namespace: "apps", name: "gone", field: "observabilityRef" },
          ],
        }),
      ]),
    ).text;
    const edges = [...graph.matchAll(/data-from="([^"]+)" data-to="([^"]+)"/g)].map((m) => `${m[1]} -> ${m[2]}`);
    expect(edges.sort()).toEqual([
      "Gateway apps/llm -> Observability apps/gone",
      "Gateway apps/llm -> PostgresCluster data/db",
      "PostgresCluster data/db -> capability cloudnative-pg",
    ]);
    expect(graph).toContain("database.postgresClusterRef");
    expect(graph).toMatch(/data-id="Observability apps\/gone">[\s\S]*?stroke-dasharray/);
    expect(graph).toMatch(/<svg [^>]*viewBox="0 0 \d+ \d+"/);
  });

  it("say on the overview when no ManagementPlane is stored, and what doctor finds", () => {
    const served = snapshot([resource("Gateway", "apps", "llm")]);
    const text = overviewPage({
      ...served,
      doctor: {
        ...served.doctor,
        findings: [
          {
            code: "ResourceNotReady",
            subject: "Gateway apps/llm",
            problem: "waits",
            blockedBy: [],
            blocks: [],
            fix: "wait",
          },
        ],
      } as never,
    }).text;
    expect(text).toContain("The cluster holds no ManagementPlane navique: the console applies the defaults");
    expect(text).toContain("<strong>Gateway apps/llm</strong>: waits");
  });
});

describe("the ManagementPlane", () => {
  it("is named navique; another name is refused with the name received and what to do", () => {
    expect(checkInput(managementPlaneName, "console", "metadata.name")).toEqual({
      ok: false,
      problems: [
        {
          path: "metadata.name",
          message:
            'must be navique: the ManagementPlane is the one console of a cluster, and the product reads no ManagementPlane of another name. Rename it to navique (received "console")',
        },
      ],
    });
  });

  it("defaults to a console served, reloading every 30 s, with the last hour's Events; refuses what is out of bounds", () => {
    expect(ManagementPlaneSpec.parse({})).toEqual({ enabled: true, refreshSeconds: 30, recentEventsMinutes: 60 });
    const refused = checkInput(ManagementPlaneSpec, { recentEventsMinutes: 0, colour: "red" }, "spec");
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toContain("spec.recentEventsMinutes");
    expect(JSON.stringify(refused)).toContain("colour");
  });

  it("is Ready when served, and says why not when turned off or not served", () => {
    const now = new Date("2026-12-06T20:00:00.000Z");
    expect(consoleCondition(DEFAULT_SETTINGS, { address: ":8082" }, 2, now)).toMatchObject({
      status: "True",
      reason: "Serving",
      observedGeneration: 2,
    });
    const off = { ...DEFAULT_SETTINGS, spec: { ...DEFAULT_SETTINGS.spec, enabled: false } };
    expect(consoleCondition(off, { address: ":8082" }, 3, now)).toMatchObject({ status: "False", reason: "Disabled" });
    expect(consoleCondition(DEFAULT_SETTINGS, undefined, 3, now).message).toContain("--console-bind-address 0");
  });
});

describe("navique console's key", () => {
  it("lets in the key it printed, and nothing else", async () => {
    const authenticator = keyAuthenticator("k3y-printed");
    expect(await authenticator.check("k3y-printed")).toEqual({ allowed: true, user: "the kubeconfig's user" });
    expect(await authenticator.check("k3y-printeD")).toMatchObject({ allowed: false, status: 401 });
  });
});
