import { existsSync } from "node:fs";
import { inCluster, inClusterKubeconfig } from "../cluster/in-cluster.js";
import { ambientKubeconfig } from "../cluster/kubeconfig-location.js";
import type { Reporter } from "../reporter.js";
import { localToolchain, noClusterConfigured } from "./local-toolchain.js";

/** Which cluster a command works on, and why that one. */
export interface ClusterTarget {
  readonly kubeconfig: string;
  readonly source: "flag" | "KUBECONFIG" | "default kubeconfig" | "in-cluster service account" | "local control plane";
}

/**
 * The cluster to use: an explicit kubeconfig, else `$KUBECONFIG` (its first file), else `~/.kube/config`, else — in a
 * pod — its service account; when none is configured, the built-in local control plane, started (or
 * reused) on loopback — from the repository only: the installed CLI says to configure a cluster.
 */
export async function resolveClusterTarget(options: {
  readonly kubeconfig?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly report: Reporter;
}): Promise<ClusterTarget> {
  const env = options.env ?? process.env;
  if (options.kubeconfig) {
    if (!existsSync(options.kubeconfig)) {
      // Only the repository has a local control plane to fall back on; the installed CLI must not offer one.
      const otherwise = (await localToolchain())
        ? "or omit the flag to use the local control plane"
        : "or omit the flag to use $KUBECONFIG or ~/.kube/config";
      throw new Error(
        `--kubeconfig ${options.kubeconfig}: no such file. Give the path of an existing kubeconfig, ${otherwise}.`,
      );
    }
    return { kubeconfig: options.kubeconfig, source: "flag" };
  }
  const ambient = ambientKubeconfig(env);
  if (ambient.from === "KUBECONFIG" || existsSync(ambient.path))
    return { kubeconfig: ambient.path, source: ambient.from };
  if (inCluster(env)) return { kubeconfig: await inClusterKubeconfig(env), source: "in-cluster service account" };
  const local = await localToolchain();
  if (!local) throw noClusterConfigured(ambient.path);
  return { kubeconfig: await local.startPlane({ report: options.report, env }), source: "local control plane" };
}
