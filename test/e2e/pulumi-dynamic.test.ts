import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../lib/cluster/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";

const PROGRAM = join(import.meta.dirname, "..", "fixtures", "pulumi", "marker-program");

// The real pulumi CLI and engine (built from source), the Node.js language host running a TypeScript
// program from its project directory, the dynamic-provider plugin, a local file backend. Every proxy
// variable points at a closed loopback port, so any attempt to reach the network would fail the run:
// passing shows none was made.
describe("pulumi up and destroy of a TypeScript program with one dynamic resource", () => {
  let work: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "navique-pulumi-smoke-"));
    project = join(work, "project");
    // A copy, because `pulumi config set` writes Pulumi.<stack>.yaml beside the program.
    await cp(PROGRAM, project, { recursive: true });
    await symlink(join(process.cwd(), "node_modules"), join(project, "node_modules"));
    const pulumi = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "smoke-test-passphrase" });
    const closed = "http://127.0.0.1:9";
    env = {
      ...pulumi.env,
      HTTP_PROXY: closed,
      HTTPS_PROXY: closed,
      http_proxy: closed,
      https_proxy: closed,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    };
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const pulumi = async (...args: string[]) =>
    (await run("pulumi", [...args, "--non-interactive"], { cwd: project, env })).stdout;

  it("creates the resource through the provider, records it in the file backend, then destroys it", async () => {
    const marker = join(work, "marker.txt");
    await pulumi("stack", "init", "smoke");
    await pulumi("config", "set", "markerPath", marker);

    const up = await pulumi("up", "--yes", "--skip-preview");
    expect(up).toContain("pulumi-nodejs:dynamic:Resource marker created");
    expect(up).not.toContain("warning: using pulumi-");
    expect(readFileSync(marker, "utf8")).toBe("written by a dynamic provider");
    expect(JSON.parse(await pulumi("stack", "output", "--json"))).toEqual({ content: "written by a dynamic provider" });

    const stacks = join(work, "state", ".pulumi", "stacks", "marker-program");
    expect(await readdir(stacks)).toContain("smoke.json");
    expect(readFileSync(join(stacks, "smoke.json"), "utf8")).toContain("pulumi-nodejs:dynamic:Resource");

    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    expect(destroy).toContain("pulumi-nodejs:dynamic:Resource marker deleted");
    expect(existsSync(marker)).toBe(false);
    const after = JSON.parse(await pulumi("stack", "export")) as { deployment: { resources?: unknown[] } };
    expect(after.deployment.resources ?? []).toHaveLength(0);
  });
});
