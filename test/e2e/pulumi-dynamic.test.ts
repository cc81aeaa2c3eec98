import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../lib/local-plane/process.js";
import { pulumiEnvironment } from "../../lib/local-plane/pulumi-environment.js";

const PROGRAM = join(import.meta.dirname, "programs", "marker-file.ts");
const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");

interface Outcome {
  summary: string;
  changes: Record<string, number>;
  outputs?: { content?: string };
}

// The real pulumi CLI (built from source) and engine, the real Node.js dynamic-provider plugin, a local
// file backend. Every proxy variable points at a closed loopback port, so any attempt to reach the
// network would fail the run: it passing shows none was made.
describe("pulumi up and destroy of a program with one dynamic resource", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let cliRoot: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "navique-pulumi-smoke-"));
    await mkdir(join(work, "project"));
    const pulumi = await pulumiEnvironment({ stateDir: join(work, "state"), passphrase: "smoke-test-passphrase" });
    cliRoot = pulumi.cliRoot;
    env = {
      ...pulumi.env,
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      http_proxy: "http://127.0.0.1:9",
      https_proxy: "http://127.0.0.1:9",
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    };
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const drive = async (action: "up" | "destroy", marker: string): Promise<Outcome> => {
    const result = await run(TSX, [PROGRAM, action, join(work, "project"), marker, cliRoot], { env });
    const last = result.stdout.trim().split("\n").pop() ?? "";
    return JSON.parse(last) as Outcome;
  };

  it("creates the resource through the provider, records it in the file backend, then destroys it", async () => {
    const marker = join(work, "marker.txt");

    const up = await drive("up", marker);
    expect(up.summary).toBe("succeeded");
    expect(up.changes.create).toBe(2); // the stack and the dynamic resource
    expect(up.outputs?.content).toBe("written by a dynamic provider");
    expect(readFileSync(marker, "utf8")).toBe("written by a dynamic provider");

    const stackFiles = await readdir(join(work, "state", ".pulumi", "stacks", "marker"));
    expect(stackFiles).toContain("smoke.json");
    const checkpoint = readFileSync(join(work, "state", ".pulumi", "stacks", "marker", "smoke.json"), "utf8");
    expect(checkpoint).toContain("pulumi-nodejs:dynamic:Resource");

    const destroy = await drive("destroy", marker);
    expect(destroy.summary).toBe("succeeded");
    expect(destroy.changes.delete).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });
});
