import { App, Chart } from "cdk8s";
import { PostgresCluster, ReferenceGrant } from "../../constructs/index.js";

/** The synth-time checks read the app's declarations once per synth: still right when the app changes between synths. */
describe("the app's declarations, gathered once per synth", () => {
  const refusals = (app: App) => {
    try {
      app.synthYaml();
      return [];
    } catch (error) {
      return (error as Error).message.split("\n").filter((line) => line.includes("is refused"));
    }
  };

  it("report each refusal on its own construct, with its own count, and count a construct added after a synth", () => {
    const app = new App({ outdir: "/tmp/navique-unused-outdir" });
    const chart = new Chart(app, "app", { namespace: "team" });
    for (const name of ["a", "b", "c"]) new PostgresCluster(chart, name, { spec: {} });
    // Community: 2 PostgresClusters; the third declared is refused, 2 come before it.
    expect(refusals(app)).toEqual([
      expect.stringContaining("[app/c] PostgresCluster team/c is refused: the Community edition allows 2"),
    ]);
    expect(refusals(app)[0]).toContain("and 2 come before it");
    new PostgresCluster(chart, "d", { spec: {} });
    const again = refusals(app);
    expect(again).toHaveLength(2);
    expect(again[1]).toContain("PostgresCluster team/d is refused");
    expect(again[1]).toContain("and 3 come before it");
  });

  it("see a grant added between two synths", () => {
    const app = new App({ outdir: "/tmp/navique-unused-outdir" });
    const chart = new Chart(app, "app");
    new PostgresCluster(chart, "db", {
      namespace: "apps",
      spec: {
        mode: "adopt",
        adopt: {
          clusterRef: { name: "shared", namespace: "data" },
          credentialsSecretRef: { name: "creds", namespace: "data" },
        },
      },
    });
    expect(() => app.synthYaml()).toThrow(/no ReferenceGrant of this app grants it/);
    new ReferenceGrant(chart, "grant", {
      namespace: "data",
      spec: {
        from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" }],
        to: [
          { group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" },
          { group: "", kind: "Secret", name: "creds" },
        ],
      },
    });
    expect(() => app.synthYaml()).not.toThrow();
  });
});
