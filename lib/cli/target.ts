import { existsSync } from "node:fs";
import { inCluster, inClusterKubeconfig } from "../cluster/in-cluster.js";
import { ambientKubeconfig } from "../cluster/kubeconfig-location.js";
import { LocalControlPlane } from "../local-plane/plane.js";
import type { Reporter } from "../reporter.js";

/** Which cluster a command works on, and why that one. */
export interface ClusterTarget {
  readonly kubeconfig: string;
  readonly source: "flag" | "KUBECONFIG" | "default kubeconfig" | "in-cluster service account" | "local control plane";
}

/**
 * The cluster to use: an explicit kubeconfig, else `$KUBECONFIG` (its first file), else `~/.kube/config`, else — in a
 * pod — its service account; when none is configured, the built-in local control plane, started (or
 * reused) on loopback.
 */
export async function resolveClusterTarget(options: {
  readonly kubeconfig?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly report: Reporter;
}): Promise<ClusterTarget> {
  const env = options.env ?? process.env;
  if (options.kubeconfig) {
    if (!existsSync(options.kubeconfig)) {
      throw new Error(
        `--kubeconfig ${options.kubeconfig}: no such file. Give the path of an existing kubeconfig, or omit the flag to use the local control plane.`,
      );
    }
    return { kubeconfig: options.kubeconfig, source: "flag" };
  }
  const ambient = ambientKubeconfig(env);
  if (ambient.from === "KUBECONFIG" || existsSync(ambient.path))
    return { kubeconfig: ambient.path, source: ambient.from };
  if (inCluster(env)) return { kubeconfig: await inClusterKubeconfig(env), source: "in-cluster service account" };
  const connection = await new LocalControlPlane({ report: options.report, env }).ensureRunning();
  return { kubeconfig: connection.kubeconfig, source: "local control plane" };
}
