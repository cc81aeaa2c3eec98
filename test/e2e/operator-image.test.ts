import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../lib/cluster/process.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { PACKAGE_VERSION } from "../../lib/package/manifest.js";
import { buildOperatorImage, IMAGE_ENTRYPOINT, IMAGE_USER } from "../../providers/operator/image.js";
import { REPOSITORY } from "../support/repository.js";
import { withBuiltPackage } from "../support/scratch-project.js";

interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

async function blob(layout: string, descriptor: Descriptor): Promise<Buffer> {
  return readFile(join(layout, "blobs", "sha256", descriptor.digest.slice("sha256:".length)));
}

// The operator's image, built as the README says (no Docker, no registry), unpacked as a container
// runtime would (index → manifest → config and layers), and its entrypoint run inside its own root file
// system as its own user: chroot, as root in the test's user namespace when the test is not root.
describe("the operator's OCI image", () => {
  let work = "";
  let layout = "";
  let root = "";

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "navique-image-test-"));
    layout = join(work, "layout");
    const inputs = {
      packageRoot: REPOSITORY,
      node: join(REPOSITORY, "node_modules", "node", "bin", "node"),
      helm: (await toolchainPaths()).helm,
    };
    await withBuiltPackage(() => buildOperatorImage(layout, inputs));
    root = join(work, "root");
    await mkdir(root);
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("is an OCI layout whose config runs the bundled CLI as a non-root user; the same inputs give the same digest", async () => {
    const index = JSON.parse(await readFile(join(layout, "index.json"), "utf8"));
    expect(JSON.parse(await readFile(join(layout, "oci-layout"), "utf8"))).toEqual({ imageLayoutVersion: "1.0.0" });
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0].annotations).toEqual({ "org.opencontainers.image.ref.name": PACKAGE_VERSION });
    const manifest = JSON.parse((await blob(layout, index.manifests[0])).toString());
    const config = JSON.parse((await blob(layout, manifest.config)).toString());
    expect(config.config.User).toBe(IMAGE_USER);
    expect(IMAGE_USER).not.toMatch(/^0(:|$)/);
    expect(config.config.Entrypoint).toEqual([...IMAGE_ENTRYPOINT]);
    expect(config.config.Cmd).toEqual(["operator"]);
    expect(config.rootfs.diff_ids).toHaveLength(manifest.layers.length);

    const again = await buildOperatorImage(join(work, "again"), {
      packageRoot: REPOSITORY,
      node: join(REPOSITORY, "node_modules", "node", "bin", "node"),
      helm: (await toolchainPaths()).helm,
    });
    expect(again.digest).toBe(index.manifests[0].digest);
  });

  it("runs navique --version, navique operator --help and helm inside its own root file system, as its user", async () => {
    const index = JSON.parse(await readFile(join(layout, "index.json"), "utf8"));
    const manifest = JSON.parse((await blob(layout, index.manifests[0])).toString());
    for (const layer of manifest.layers as Descriptor[]) {
      await run("tar", ["-xzf", join(layout, "blobs", "sha256", layer.digest.slice(7)), "-C", root]);
    }
    // The image's environment only: nothing of the test's leaks in (the image has no shell and no env).
    const env = { HOME: "/home/nonroot", PATH: "/usr/local/bin" };
    const inside = (...command: string[]) => {
      const chroot = ["chroot", `--userspec=${IMAGE_USER}`, root, ...command];
      // chroot needs root: a test run as another user becomes root of a user namespace of its own.
      return process.getuid?.() === 0
        ? run("/usr/sbin/chroot", chroot.slice(1), { env })
        : run("/usr/bin/unshare", ["--map-root-user", "/usr/sbin/chroot", ...chroot.slice(1)], { env });
    };
    expect((await inside(...IMAGE_ENTRYPOINT, "--version")).stdout.trim()).toBe(`@navique/ai-core ${PACKAGE_VERSION}`);
    // The command's own page (lib/cli/commands.ts): its options, the chart's among them.
    expect((await inside(...IMAGE_ENTRYPOINT, "operator", "--help")).stdout).toMatch(
      /^usage: navique operator \[--kubeconfig PATH\][\s\S]*\n {6}--health-probe-bind-address ADDR\n/,
    );
    expect((await inside("/usr/local/bin/helm", "version", "--short")).stdout).toMatch(/^v4\./);
    // The entrypoint's user is who runs: the process's own view of its ids.
    expect(
      (
        await inside(...IMAGE_ENTRYPOINT.slice(0, 1), "-e", "console.log(process.getuid(), process.getgid())")
      ).stdout.trim(),
    ).toBe(IMAGE_USER.replace(":", " "));
  });
});
