import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/**
 * Where a kubeconfig is, without the Kubernetes client or a YAML parser: what a front end needs before it
 * talks to a cluster (a program reading its args), cheap to load. What one names: cluster-server.ts.
 */

/** Whether a kubeconfig argument is the file's content (YAML or JSON) rather than a path to it. */
export function isKubeconfigContent(value: string): boolean {
  return value.includes("\n") || /^\s*(\{|apiVersion\s*:)/.test(value);
}

/**
 * A kubeconfig argument as content: content as given; a path read (a path that names no file is an
 * error naming it, never the argument's content).
 */
export function kubeconfigContent(argument: string): string {
  if (isKubeconfigContent(argument)) return argument;
  try {
    return readFileSync(argument, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      `kubeconfig ${argument}: cannot read it (${code ?? String(error)}); pass the path of a kubeconfig file or its content`,
    );
  }
}

/** Where the ambient kubeconfig is: the first file of $KUBECONFIG, else ~/.kube/config (which may not exist). */
export function ambientKubeconfig(env: NodeJS.ProcessEnv = process.env): {
  readonly path: string;
  readonly from: "KUBECONFIG" | "default kubeconfig";
} {
  // kubectl merges every file of a list; the product reads the first one, as helm's --kubeconfig does.
  const first = (env.KUBECONFIG ?? "").split(delimiter).find((entry) => entry.length > 0);
  if (first !== undefined) return { path: first, from: "KUBECONFIG" };
  return { path: join(env.HOME ?? homedir(), ".kube", "config"), from: "default kubeconfig" };
}

/** The ambient kubeconfig's path (see ambientKubeconfig). */
export function ambientKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return ambientKubeconfig(env).path;
}
