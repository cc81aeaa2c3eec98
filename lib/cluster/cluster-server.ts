import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { ambientKubeconfigPath, isKubeconfigContent } from "./kubeconfig-location.js";

interface KubeconfigNames {
  readonly "current-context"?: string;
  readonly contexts?: readonly { readonly name?: string; readonly context?: { readonly cluster?: string } }[];
  readonly clusters?: readonly { readonly name?: string; readonly cluster?: { readonly server?: string } }[];
}

/**
 * The API server a kubeconfig's current context names: what "the same cluster" means when the way to
 * reach it changes (another path, another file). Undefined when it cannot be read. `content` is the
 * kubeconfig's content, a path (states of the first release), or undefined for the ambient one. A module
 * of its own: the YAML parser it loads is needed only when two kubeconfigs differ.
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
