import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import type { ChartPin } from "./chart-pin.js";

/** Whatever pins a chart: a capability, a workload. */
interface Pinned {
  readonly chart: ChartPin;
}

/**
 * Where capability charts come from: the official repository of each entry (default), a local directory
 * mirror, or an OCI registry mirror, for air-gapped clusters.
 */
export const ChartSource = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("repository") }).strict(),
  z
    .object({
      kind: z.literal("directory"),
      path: z.string().min(1).describe("Holds <chart>-<version>.tgz packages, or <chart>/ chart directories."),
    })
    .strict(),
  z
    .object({
      kind: z.literal("oci"),
      registry: z.string().startsWith("oci://").describe("Charts are pulled as <registry>/<chart>:<version>."),
    })
    .strict(),
]);
export type ChartSource = z.infer<typeof ChartSource>;

export const OFFICIAL_REPOSITORIES: ChartSource = { kind: "repository" };

/** What `helm install` gets for one chart. */
export interface ResolvedChart {
  /** Chart reference: a name (with `repo`), an `oci://` reference, a .tgz path or a directory. */
  readonly ref: string;
  readonly repo?: string;
  readonly version?: string;
  /** For progress lines and previews. */
  readonly describe: string;
}

export class ChartSourceError extends Error {
  override name = "ChartSourceError";
}

async function sha256(file: string): Promise<string> {
  return `sha256:${createHash("sha256")
    .update(await readFile(file))
    .digest("hex")}`;
}

async function fromDirectory(entry: Pinned, path: string): Promise<ResolvedChart> {
  const { name, version, digest } = entry.chart;
  const packaged = join(path, `${name}-${version}.tgz`);
  if (existsSync(packaged)) {
    if (digest) {
      const actual = await sha256(packaged);
      if (actual !== digest) {
        throw new ChartSourceError(
          `${packaged} has digest ${actual}, but the catalog pins ${name} ${version} at ${digest}: replace the file with the official package`,
        );
      }
    }
    return { ref: packaged, describe: `${name} ${version} from ${packaged}` };
  }
  const directory = join(path, name);
  const chartFile = join(directory, "Chart.yaml");
  if (existsSync(chartFile)) {
    // The YAML parser, loaded here only: a program that names no mirror directory never needs it.
    const { parse } = await import("yaml");
    const found = (parse(await readFile(chartFile, "utf8")) as { version?: string }).version;
    if (found !== version) {
      throw new ChartSourceError(
        `${directory} holds ${name} ${found ?? "of no version"}, but the catalog pins ${version}: put ${name}-${version}.tgz in ${path}`,
      );
    }
    return { ref: directory, describe: `${name} ${version} from ${directory}` };
  }
  throw new ChartSourceError(
    `the chart mirror ${path} has neither ${name}-${version}.tgz nor ${name}/: add the packaged chart`,
  );
}

/** Resolves the chart of a capability or a workload from a source; a directory mirror is checked for version and digest. */
export async function resolveChart(entry: Pinned, source: ChartSource): Promise<ResolvedChart> {
  const { name, version, repository, oci } = entry.chart;
  switch (source.kind) {
    case "repository":
      // A chart published only to a registry is pulled from there (ChartPin holds one or the other).
      if (!repository) return { ref: oci ?? name, version, describe: `${name} ${version} from ${oci}` };
      return { ref: name, repo: repository, version, describe: `${name} ${version} from ${repository}` };
    case "oci": {
      const ref = `${source.registry.replace(/\/+$/, "")}/${name}`;
      return { ref, version, describe: `${name} ${version} from ${ref}` };
    }
    case "directory":
      return fromDirectory(entry, source.path);
  }
}

/**
 * Reads a chart source from the command line or the environment: `official` (default), `dir:PATH`
 * (a local mirror) or `oci://HOST/PATH` (a registry mirror).
 */
export function parseChartSource(text: string | undefined): ChartSource {
  if (text === undefined || text === "" || text === "official") return OFFICIAL_REPOSITORIES;
  if (text.startsWith("dir:") && text.length > 4) return { kind: "directory", path: text.slice(4) };
  if (text.startsWith("oci://") && text.length > 6) return { kind: "oci", registry: text };
  throw new ChartSourceError(
    `chart source "${text}" is not understood: write official, dir:/path/to/mirror (packaged charts) or oci://registry.example/charts`,
  );
}
