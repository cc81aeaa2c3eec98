import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CapabilityEntry } from "../../lib/catalog/capability.js";
import { ChartSourceError, parseChartSource, resolveChart } from "../../lib/catalog/chart-source.js";
import { CLOUDNATIVE_PG } from "../../lib/catalog/cloudnative-pg.js";
import { run } from "../../lib/cluster/process.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { FIXTURE_CHARTS } from "../support/capabilities.js";

// Chart sources for air-gapped clusters, with a package made by the real `helm package`.
describe("chart sources", () => {
  let mirror: string;
  let digest: string;

  beforeAll(async () => {
    mirror = await mkdtemp(join(tmpdir(), "navique-mirror-"));
    await run((await toolchainPaths()).helm, [
      "package",
      join(FIXTURE_CHARTS, "cloudnative-pg"),
      "--destination",
      mirror,
    ]);
    digest = `sha256:${createHash("sha256")
      .update(readFileSync(join(mirror, "cloudnative-pg-0.29.0.tgz")))
      .digest("hex")}`;
  });
  afterAll(async () => {
    await rm(mirror, { recursive: true, force: true });
  });

  it("defaults to the official repository at the pinned version", async () => {
    expect(await resolveChart(CLOUDNATIVE_PG, parseChartSource(undefined))).toEqual({
      ref: "cloudnative-pg",
      repo: "https://cloudnative-pg.github.io/charts",
      version: "0.29.0",
      describe: "cloudnative-pg 0.29.0 from https://cloudnative-pg.github.io/charts",
    });
  });

  it("takes a chart published only to a registry from its official OCI location", async () => {
    const ociOnly = CapabilityEntry.parse({
      ...CLOUDNATIVE_PG,
      chart: { name: "cloudnative-pg", version: "0.29.0", oci: "oci://registry.example/charts/cloudnative-pg" },
    });
    expect(await resolveChart(ociOnly, parseChartSource(undefined))).toEqual({
      ref: "oci://registry.example/charts/cloudnative-pg",
      version: "0.29.0",
      describe: "cloudnative-pg 0.29.0 from oci://registry.example/charts/cloudnative-pg",
    });
    expect(() =>
      CapabilityEntry.parse({ ...CLOUDNATIVE_PG, chart: { name: "cloudnative-pg", version: "0.29.0" } }),
    ).toThrow("a chart needs its official repository or its OCI location (chart.repository or chart.oci)");
  });

  it("takes charts from an OCI registry mirror", async () => {
    expect(await resolveChart(CLOUDNATIVE_PG, parseChartSource("oci://registry.internal/charts/"))).toMatchObject({
      ref: "oci://registry.internal/charts/cloudnative-pg",
      version: "0.29.0",
    });
  });

  it("takes a packaged chart from a directory mirror when its digest matches the pinned one", async () => {
    const pinned = CapabilityEntry.parse({ ...CLOUDNATIVE_PG, chart: { ...CLOUDNATIVE_PG.chart, digest } });
    expect((await resolveChart(pinned, parseChartSource(`dir:${mirror}`))).ref).toBe(
      join(mirror, "cloudnative-pg-0.29.0.tgz"),
    );
  });

  it("refuses a package whose digest differs from the pinned one, saying what to do", async () => {
    const pinned = CapabilityEntry.parse({
      ...CLOUDNATIVE_PG,
      chart: { ...CLOUDNATIVE_PG.chart, digest: `sha256:${"0".repeat(64)}` },
    });
    await expect(resolveChart(pinned, parseChartSource(`dir:${mirror}`))).rejects.toThrow(
      new ChartSourceError(
        `${join(mirror, "cloudnative-pg-0.29.0.tgz")} has digest ${digest}, but the catalog pins cloudnative-pg 0.29.0 at sha256:${"0".repeat(64)}: replace the file with the official package`,
      ),
    );
  });

  it("refuses a mirror without the pinned version, and a source it does not understand", async () => {
    const newer = CapabilityEntry.parse({ ...CLOUDNATIVE_PG, chart: { ...CLOUDNATIVE_PG.chart, version: "0.30.0" } });
    await expect(resolveChart(newer, parseChartSource(`dir:${mirror}`))).rejects.toThrow(
      `the chart mirror ${mirror} has neither cloudnative-pg-0.30.0.tgz nor cloudnative-pg/: add the packaged chart`,
    );
    expect(() => parseChartSource("https://example.com/charts")).toThrow(
      'chart source "https://example.com/charts" is not understood: write official, dir:/path/to/mirror (packaged charts) or oci://registry.example/charts',
    );
  });
});
