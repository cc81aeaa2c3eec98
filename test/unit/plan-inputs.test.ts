import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { judgeFile, readPlanInputs } from "../../lib/engine/plan-inputs.js";
import { REGISTRY } from "../../lib/kinds/registry.js";

const GROUP_VERSION = "core.navique.com/v1alpha1";
const KINDS =
  "PostgresCluster, Stack, RedisInstance, MeilisearchInstance, Gateway, ClickHouseCluster, MongoCluster, SecretsManagement, Observability, ChatUI, Organization, Team, User, License, ReferenceGrant, ManagementPlane";

function postgres(name: string, namespace = "apps") {
  return { apiVersion: GROUP_VERSION, kind: "PostgresCluster", metadata: { name, namespace }, spec: {} };
}

function judged(text: string | Uint8Array, file = "platform.yaml") {
  return judgeFile(file, typeof text === "string" ? new TextEncoder().encode(text) : text, REGISTRY);
}

describe("navique plan's inputs, judged before the cluster is touched", () => {
  it("reads every document of the product's group through its kind's schema, the grants and the licence alike", () => {
    const grant = {
      apiVersion: GROUP_VERSION,
      kind: "ReferenceGrant",
      metadata: { name: "apps-may-adopt", namespace: "data" },
      spec: {
        from: [{ group: "core.navique.com", kind: "PostgresCluster", namespace: "apps" }],
        to: [{ group: "postgresql.cnpg.io", kind: "Cluster", name: "shared" }],
      },
    };
    const licence = { apiVersion: GROUP_VERSION, kind: "License", metadata: { name: "navique" }, spec: { token: "t" } };
    const result = judged([postgres("db"), grant, licence].map((d) => stringify(d)).join("---\n"));
    expect(result.problems).toEqual([]);
    expect(result.resources.map((r) => [r.where, r.resource.kind, r.resource.metadata.name])).toEqual([
      ["platform.yaml document 1 (line 1)", "PostgresCluster", "db"],
    ]);
    // Parsed by the schema: its defaults are there, as the apiserver would store them.
    expect(result.resources[0]?.resource.spec).toMatchObject({ mode: "managed" });
    expect(result.grants).toEqual([{ namespace: "data", spec: grant.spec }]);
    expect(result.licences).toEqual([{ where: "platform.yaml document 3 (line 23)", token: "t" }]);
  });

  it("names a YAML syntax error with its line and column, not as a schema error", () => {
    const result = judged(`${stringify(postgres("db"))}---\nkind: PostgresCluster\nspec: [1\n`);
    expect(result.problems).toEqual([
      "platform.yaml:10:1: document 2: invalid YAML (BAD_INDENT): Flow sequence in block collection must be sufficiently indented and end with a ]. Correct the YAML; this document was not planned",
    ]);
    // The valid document is still judged.
    expect(result.resources).toHaveLength(1);
  });

  it("refuses a duplicate key, which other tools would resolve silently by keeping one value", () => {
    const text = `apiVersion: ${GROUP_VERSION}\nkind: PostgresCluster\nmetadata:\n  name: db\n  namespace: apps\n  name: other\nspec: {}\n`;
    expect(judged(text).problems).toEqual([
      'platform.yaml:6:3: document 1: key "name" appears twice in one mapping (other tools silently keep one of the values). Remove one; this document was not planned',
    ]);
    expect(judged(text).resources).toEqual([]);
  });

  it("says an empty file, or one of comments and document markers only, is empty", () => {
    const empty =
      "platform.yaml: empty: it holds no YAML document. Write the resources into it, or remove it from the paths given to plan";
    expect(judged("").problems).toEqual([empty]);
    expect(judged("# nothing yet\n---\n---\n").problems).toEqual([empty]);
  });

  it("refuses binary content: a NUL byte, or bytes that are not UTF-8", () => {
    const binary =
      "chart.tgz: binary content, not UTF-8 text: plan reads YAML (e.g. cdk8s synth output). Remove it from the paths given to plan";
    expect(judged(new Uint8Array([0x1f, 0x8b, 0x08, 0x00]), "chart.tgz").problems).toEqual([binary]);
    expect(judged(new Uint8Array([0x6b, 0x69, 0x6e, 0x64, 0xff, 0xfe]), "chart.tgz").problems).toEqual([binary]);
  });

  it("names an unknown kind of the group with the nearest one, and another version of the group", () => {
    const text = [
      { ...postgres("a"), kind: "PostgresClustr" },
      { ...postgres("b"), apiVersion: "core.navique.com/v1beta1" },
      { ...postgres("c"), kind: "Gatewy" },
    ]
      .map((d) => stringify(d))
      .join("---\n");
    expect(judged(text).problems).toEqual([
      `platform.yaml document 1 (line 1): kind "PostgresClustr" is not a kind of core.navique.com/v1alpha1 (did you mean "PostgresCluster"?); its kinds are ${KINDS}. Correct the kind; the document was not planned`,
      'platform.yaml document 2 (line 8): apiVersion core.navique.com/v1beta1: version "v1beta1" of core.navique.com is not served by this navique (it serves core.navique.com/v1alpha1). Write apiVersion: core.navique.com/v1alpha1; the document was not planned',
      `platform.yaml document 3 (line 15): kind "Gatewy" is not a kind of core.navique.com/v1alpha1 (did you mean "Gateway"?); its kinds are ${KINDS}. Correct the kind; the document was not planned`,
    ]);
  });

  it("judges the console's settings as the apiserver will, then plans nothing for them", () => {
    const plane = (name: string, spec: Record<string, unknown>) =>
      stringify({ apiVersion: "core.navique.com/v1alpha1", kind: "ManagementPlane", metadata: { name }, spec });
    const settled = judged(plane("navique", { refreshSeconds: 0 }));
    expect(settled.problems).toEqual([]);
    expect(settled.resources).toEqual([]);
    expect(judged([plane("console", {}), plane("navique", { refreshSeconds: -1 })].join("---\n")).problems).toEqual([
      'platform.yaml document 1 (line 1) is invalid:\n  - metadata.name: must be navique: the ManagementPlane is the one console of a cluster, and the product reads no ManagementPlane of another name. Rename it to navique (received "console")\n  Correct the document; it was not planned',
      "platform.yaml document 2 (line 7) is invalid:\n  - spec.refreshSeconds: must be >= 0 (received -1)\n  Correct the document; it was not planned",
    ]);
  });

  it("names a group one typo away from the product's instead of skipping it as another group's", () => {
    const text = stringify({ ...postgres("a"), apiVersion: "core.naviqe.com/v1alpha1" });
    expect(judged(text).problems).toEqual([
      'platform.yaml document 1 (line 1): apiVersion core.naviqe.com/v1alpha1: group "core.naviqe.com" is not the product\'s; did you mean core.navique.com/v1alpha1? Correct it; the document was not planned',
    ]);
  });

  it("skips the documents of other API groups, said once per file with what they are", () => {
    const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } };
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "apps" } };
    const result = judged([namespace, postgres("db"), deployment, namespace].map((d) => stringify(d)).join("---\n"));
    expect(result.problems).toEqual([]);
    expect(result.notes).toEqual([
      "platform.yaml: 3 document(s) of other API groups skipped (2 Namespace v1, Deployment apps/v1): plan judges only core.navique.com resources",
    ]);
  });

  it("refuses what is not a Kubernetes object, and an object without apiVersion or kind", () => {
    expect(judged("- a\n- b\n").problems).toEqual([
      "platform.yaml document 1 (line 1): expected a Kubernetes object (a mapping with apiVersion and kind), received a list. Correct the document; it was not planned",
    ]);
    expect(judged("kind: PostgresCluster\nmetadata: {name: db}\n").problems).toEqual([
      "platform.yaml document 1 (line 1): expected a Kubernetes object with apiVersion and kind, received one without apiVersion. Add it; the document was not planned",
    ]);
  });

  it("reports a schema error with every field, what was expected and received, the licence's name included", () => {
    const result = judged(
      [
        { ...postgres("db"), spec: { mode: "managd" } },
        { apiVersion: GROUP_VERSION, kind: "License", metadata: { name: "ours" }, spec: { token: "t" } },
      ]
        .map((d) => stringify(d))
        .join("---\n"),
    );
    expect(result.problems).toEqual([
      'platform.yaml document 1 (line 1) is invalid:\n  - spec.mode: expected one of "managed", "adopt", "external" (received "managd")\n  Correct the document; it was not planned',
      'platform.yaml document 2 (line 9) is invalid:\n  - metadata.name: must be navique: the License is the one licence of a cluster, and the product reads no License of another name. Rename it to navique (received "ours")\n  Correct the document; it was not planned',
    ]);
  });
});

describe("navique plan's paths", () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), "navique-plan-inputs-"));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("reads several files and a directory, recursing into its *.yaml and *.yml files only", async () => {
    await mkdir(join(work, "dir", "nested"), { recursive: true });
    await writeFile(join(work, "a.yaml"), stringify(postgres("a")));
    await writeFile(join(work, "dir", "b.yml"), stringify(postgres("b")));
    await writeFile(join(work, "dir", "nested", "c.yaml"), stringify(postgres("c")));
    await writeFile(join(work, "dir", "notes.txt"), "not read: a directory is read for YAML files only");
    const inputs = await readPlanInputs([join(work, "a.yaml"), join(work, "dir")], REGISTRY);
    expect(inputs.problems).toEqual([]);
    expect(inputs.resources.map((r) => r.resource.metadata.name)).toEqual(["a", "b", "c"]);
    expect(inputs.resources.map((r) => r.where)).toEqual([
      `${join(work, "a.yaml")} document 1 (line 1)`,
      `${join(work, "dir", "b.yml")} document 1 (line 1)`,
      `${join(work, "dir", "nested", "c.yaml")} document 1 (line 1)`,
    ]);
  });

  it("names a path that does not exist, a directory without YAML, and a resource declared twice", async () => {
    await mkdir(join(work, "empty-dir"));
    await writeFile(join(work, "a.yaml"), stringify(postgres("db")));
    await writeFile(join(work, "b.yaml"), `${stringify(postgres("other"))}---\n${stringify(postgres("db"))}`);
    const inputs = await readPlanInputs(
      [join(work, "missing.yaml"), join(work, "empty-dir"), join(work, "a.yaml"), join(work, "b.yaml")],
      REGISTRY,
    );
    expect(inputs.problems).toEqual([
      `${join(work, "missing.yaml")}: cannot be read (ENOENT). Name an existing YAML file or directory`,
      `${join(work, "empty-dir")}: a directory without any .yaml or .yml file, at any depth. Name the directory that holds the resources`,
      `${join(work, "b.yaml")} document 2 (line 8): PostgresCluster apps/db is declared again (first in ${join(work, "a.yaml")} document 1 (line 1)): applied together, one would replace the other. Keep one; neither was planned`,
    ]);
    expect(inputs.resources.map((r) => r.resource.metadata.name)).toEqual(["other"]);
  });

  it("applies the one licence declared, and refuses two that differ", async () => {
    const licence = (token: string) =>
      stringify({ apiVersion: GROUP_VERSION, kind: "License", metadata: { name: "navique" }, spec: { token } });
    await writeFile(join(work, "a.yaml"), licence("one"));
    await writeFile(join(work, "b.yaml"), licence("one"));
    expect((await readPlanInputs([join(work, "a.yaml"), join(work, "b.yaml")], REGISTRY)).licence?.token).toBe("one");
    await writeFile(join(work, "b.yaml"), licence("two"));
    const inputs = await readPlanInputs([join(work, "a.yaml"), join(work, "b.yaml")], REGISTRY);
    expect(inputs.licence).toBeUndefined();
    expect(inputs.problems).toEqual([
      `${join(work, "b.yaml")} document 1 (line 1): a second License with another token (first in ${join(work, "a.yaml")} document 1 (line 1)): a cluster has one. Keep one; no licence of the paths was applied`,
    ]);
  });
});
