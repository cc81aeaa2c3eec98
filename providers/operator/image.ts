/**
 * The operator's OCI image, built without Docker or a registry from what this machine has: the Node.js
 * binary of the npm `node` package, the shared libraries it links against as Debian installed them here
 * (glibc, libstdc++, libgcc), Debian's CA bundle, the helm binary, and the package's bundled CLI
 * (dist/navique.js, ADR 0018) — one layer, written as an OCI image layout (image-spec v1.1: oci-layout,
 * index.json, blobs/sha256). Reproducible: the same inputs give the same digests (file times, owners and
 * order fixed in the tar, no name or time in the gzip header).
 *
 *   npm run build && npm run image -- OUT_DIR [--helm PATH] [--pin]
 *
 * `--pin` makes it the release's: its digest is written where the chart and the NaviqueOperator
 * construct take their default image from. Push it with any OCI tool, e.g.
 * `skopeo copy oci:OUT_DIR:TAG docker://REGISTRY/IMAGE:TAG`.
 */
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { OPERATOR_NODE_OPTIONS, OPERATOR_UID, OPERATOR_WRITABLE_PATHS } from "../../lib/api/operator-process.js";
import { resolveHelm } from "../../lib/cluster/helm-binary.js";
import { run } from "../../lib/cluster/process.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../lib/package/manifest.js";
import { OPERATOR_IMAGE } from "../../lib/package/operator-image.js";

/** The user the operator runs as (OPERATOR_UID), as an image config names it. */
export const IMAGE_USER = `${OPERATOR_UID}:${OPERATOR_UID}`;
export const IMAGE_ENTRYPOINT = ["/usr/local/bin/node", "/app/navique.js"] as const;

const MEDIA = {
  index: "application/vnd.oci.image.index.v1+json",
  manifest: "application/vnd.oci.image.manifest.v1+json",
  config: "application/vnd.oci.image.config.v1+json",
  layer: "application/vnd.oci.image.layer.v1.tar+gzip",
} as const;

export interface ImageInputs {
  /** The package's root: dist/navique.js and package.json are taken from it. */
  readonly packageRoot: string;
  /** The Node.js binary to ship. */
  readonly node: string;
  /** The helm binary to ship. */
  readonly helm: string;
}

export interface BuiltImage {
  readonly directory: string;
  /** The manifest's digest, `sha256:…`: what the chart and the construct can pin. */
  readonly digest: string;
  readonly tag: string;
}

interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

async function writeBlob(layout: string, mediaType: string, content: Buffer): Promise<Descriptor> {
  const hex = createHash("sha256").update(content).digest("hex");
  await writeFile(join(layout, "blobs", "sha256", hex), content);
  return { mediaType, digest: `sha256:${hex}`, size: content.length };
}

/** The shared libraries `binary` loads, and the loader, as `ldd` resolves them on this machine. */
async function linkedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run("ldd", [binary]);
  return stdout
    .split("\n")
    .map((line) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
}

/** Copies a file to the same path under `root`, following links (the image holds the file, by its name). */
async function place(root: string, path: string, as: string = path): Promise<void> {
  const target = join(root, as);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(await realpath(path), target);
}

/** The image's root file system in `root`. */
async function assembleRoot(root: string, inputs: ImageInputs): Promise<void> {
  await place(root, inputs.node, "/usr/local/bin/node");
  for (const library of await linkedLibraries(inputs.node)) await place(root, library);
  await place(root, inputs.helm, "/usr/local/bin/helm");
  await place(root, join(inputs.packageRoot, "dist", "navique.js"), "/app/navique.js");
  await writeFile(
    join(root, "app", "package.json"),
    `${JSON.stringify({ name: PACKAGE_NAME, version: PACKAGE_VERSION, type: "module" }, null, 2)}\n`,
  );
  // Helm verifies chart repositories' TLS with the system's roots; Node.js brings its own.
  await place(root, "/etc/ssl/certs/ca-certificates.crt");
  const [uid, gid] = IMAGE_USER.split(":");
  await mkdir(join(root, "etc"), { recursive: true });
  await writeFile(
    join(root, "etc", "passwd"),
    `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${uid}:${gid}:nonroot:${OPERATOR_WRITABLE_PATHS.home}:/sbin/nologin\n`,
  );
  await writeFile(join(root, "etc", "group"), `root:x:0:\nnonroot:x:${gid}:\n`);
  // Writable by the operator's user whatever the runtime's user namespace: helm's cache and the
  // operator's private kubeconfig files.
  for (const writable of Object.values(OPERATOR_WRITABLE_PATHS).map((path) => path.slice(1))) {
    await mkdir(join(root, writable), { recursive: true });
    await chmod(join(root, writable), 0o1777);
  }
}

/** The root as one layer: a tar with fixed order, times and owners, gzipped with no name or time. */
async function layerOf(root: string, scratch: string): Promise<{ gzipped: Buffer; diffId: string }> {
  const tarball = join(scratch, "layer.tar");
  await run("tar", [
    "--create",
    "--file",
    tarball,
    "--directory",
    root,
    "--sort=name",
    "--mtime=@0",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime",
    ".",
  ]);
  const tar = await readFile(tarball);
  await run("gzip", ["--no-name", tarball]);
  return {
    gzipped: await readFile(`${tarball}.gz`),
    diffId: `sha256:${createHash("sha256").update(tar).digest("hex")}`,
  };
}

/** Builds the image into the OCI layout `directory` (created, or replaced), tagged with the package's version. */
export async function buildOperatorImage(directory: string, inputs: ImageInputs): Promise<BuiltImage> {
  const scratch = await mkdtemp(join(tmpdir(), "navique-image-"));
  try {
    const root = join(scratch, "root");
    await assembleRoot(root, inputs);
    const layer = await layerOf(root, scratch);
    await rm(directory, { recursive: true, force: true });
    await mkdir(join(directory, "blobs", "sha256"), { recursive: true });
    const layerBlob = await writeBlob(directory, MEDIA.layer, layer.gzipped);
    const config = {
      architecture: "amd64",
      os: "linux",
      config: {
        User: IMAGE_USER,
        Entrypoint: [...IMAGE_ENTRYPOINT],
        Cmd: ["operator"],
        Env: [
          "PATH=/usr/local/bin:/usr/bin:/bin",
          `HOME=${OPERATOR_WRITABLE_PATHS.home}`,
          `NODE_OPTIONS=${OPERATOR_NODE_OPTIONS}`,
        ],
        WorkingDir: "/app",
        Labels: { "org.opencontainers.image.title": PACKAGE_NAME, "org.opencontainers.image.version": PACKAGE_VERSION },
      },
      rootfs: { type: "layers", diff_ids: [layer.diffId] },
    };
    const configBlob = await writeBlob(directory, MEDIA.config, Buffer.from(JSON.stringify(config)));
    const manifest = { schemaVersion: 2, mediaType: MEDIA.manifest, config: configBlob, layers: [layerBlob] };
    const manifestBlob = await writeBlob(directory, MEDIA.manifest, Buffer.from(JSON.stringify(manifest)));
    const index = {
      schemaVersion: 2,
      mediaType: MEDIA.index,
      manifests: [{ ...manifestBlob, annotations: { "org.opencontainers.image.ref.name": PACKAGE_VERSION } }],
    };
    await writeFile(join(directory, "index.json"), JSON.stringify(index));
    await writeFile(join(directory, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
    return { directory, digest: manifestBlob.digest, tag: PACKAGE_VERSION };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * `--pin`: the built image becomes the release's — its digest written into lib/package/operator-image.ts,
 * then the chart generated again (`npm run generate`) so that its values name it too.
 */
async function pin(packageRoot: string, image: BuiltImage): Promise<void> {
  const file = join(packageRoot, "lib", "package", "operator-image.ts");
  const text = await readFile(file, "utf8");
  const pinned = text
    .replace(/tag: "[^"]*"/, `tag: "${image.tag}"`)
    .replace(/digest: "sha256:[0-9a-f]{64}"/, `digest: "${image.digest}"`);
  if (!pinned.includes(image.digest)) throw new Error(`${file}: no tag and digest found to pin`);
  await writeFile(file, pinned);
  await run("npm", ["run", "--silent", "generate"], { cwd: packageRoot });
  process.stdout.write(`pinned ${OPERATOR_IMAGE.repository}:${image.tag}@${image.digest} in ${file} and the chart\n`);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { helm: { type: "string" }, pin: { type: "boolean", default: false } },
  });
  const [out] = positionals;
  if (!out) throw new Error("usage: npm run image -- OUT_DIR [--helm PATH] [--pin]");
  const packageRoot = join(import.meta.dirname, "..", "..");
  const node = join(packageRoot, "node_modules", "node", "bin", "node");
  const image = await buildOperatorImage(out, { packageRoot, node, helm: resolveHelm(values.helm) });
  process.stdout.write(`${image.directory}: ${OPERATOR_IMAGE.repository}:${image.tag}@${image.digest}\n`);
  if (values.pin) await pin(packageRoot, image);
}

if (process.argv[1] === import.meta.filename) await main();
