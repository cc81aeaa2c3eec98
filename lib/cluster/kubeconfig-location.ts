import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { parse } from "yaml";

/**
 * Where a kubeconfig is and what it names, without the Kubernetes client: what a front end needs before
 * it talks to a cluster (a Pulumi diff, a program reading its args), cheap to load.
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

interface KubeconfigNames {
  readonly "current-context"?: string;
  readonly contexts?: readonly { readonly name?: string; readonly context?: { readonly cluster?: string } }[];
  readonly clusters?: readonly { readonly name?: string; readonly cluster?: { readonly server?: string } }[];
}

/**
 * The API server a kubeconfig's current context names: what "the same cluster" means when the way to
 * reach it changes (another path, another file). Undefined when it cannot be read. `content` is the
 * kubeconfig's content, a path (states of the first release), or undefined for the ambient one.
 */
export function clusterServer(content: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const text =
      content !== undefined && isKubeconfigContent(content)
        ? content
        : readFileSync(content ?? ambientKubeconfigPath(env), "utf8");
    const kubeconfig = parse(text) as KubeconfigNames;
    const cluster = kubeconfig.contexts?.find((c) => c.name === kubeconfig["current-context"])?.context?.cluster;
    return kubeconfig.clusters?.find((c) => c.name === cluster)?.cluster?.server;
  } catch {
    return undefined;
  }
}
