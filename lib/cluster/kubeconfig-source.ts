import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeClient } from "./kube-client.js";
import { ambientKubeconfigPath, isKubeconfigContent } from "./kubeconfig-location.js";

/**
 * Where a front end's cluster comes from: a kubeconfig's content, or nothing — the ambient kubeconfig,
 * found when it is needed as kubectl and pulumi-kubernetes find it. A path is never what is kept: it
 * names a file of one machine.
 */
export type KubeconfigContent = string | undefined;

/** Content written for helm (which reads kubeconfigs from files only), by digest: one private file each per process. */
const written = new Map<string, string>();
let scratch: string | undefined;

function fileFor(content: string): string {
  const digest = createHash("sha256").update(content).digest("hex").slice(0, 16);
  const known = written.get(digest);
  if (known) return known;
  if (!scratch) {
    const directory = mkdtempSync(join(tmpdir(), "navique-kubeconfig-"));
    scratch = directory;
    process.once("exit", () => rmSync(directory, { recursive: true, force: true }));
  }
  const path = join(scratch, `${digest}.yaml`);
  writeFileSync(path, content, { mode: 0o600 });
  written.set(digest, path);
  return path;
}

/**
 * A kubeconfig's content, parsed. A parse error names the line, never the content: the YAML parser's
 * message quotes the lines around the fault, which may hold a token.
 */
function parsed(content: string): KubeConfig {
  const kubeconfig = new KubeConfig();
  try {
    kubeconfig.loadFromString(content);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    throw new Error(`the kubeconfig content given is not a kubeconfig (${first})`);
  }
  return kubeconfig;
}

/** How to reach a cluster: the API client, and a kubeconfig file for helm. */
export interface ClusterAccess {
  readonly client: KubeClient;
  readonly kubeconfigFile: string;
}

/** Access to the cluster of a kubeconfig's content, or of the ambient kubeconfig when there is none. */
export function clusterAccess(content: KubeconfigContent, env: NodeJS.ProcessEnv = process.env): ClusterAccess {
  // A path is what states recorded by the first release hold: still read from where it points.
  const path = content === undefined ? ambientKubeconfigPath(env) : isKubeconfigContent(content) ? undefined : content;
  if (path !== undefined) return { client: KubeClient.fromFile(path), kubeconfigFile: path };
  const kubeconfig = parsed(content as string);
  return { client: new KubeClient(kubeconfig), kubeconfigFile: fileFor(content as string) };
}

/**
 * A kubeconfig's content with another current context, and that context pointed at another of its
 * clusters: what a @pulumi/kubernetes Provider's `context` and `cluster` args choose. A name the
 * kubeconfig lacks is an error listing those it has.
 */
export function choosingContext(
  content: string,
  choice: { readonly context?: string | undefined; readonly cluster?: string | undefined },
): string {
  const kubeconfig = parsed(content);
  const names = (items: readonly { readonly name: string }[]) => items.map((item) => item.name).join(", ") || "none";
  if (choice.context !== undefined) {
    if (!kubeconfig.getContextObject(choice.context)) {
      throw new Error(
        `context ${choice.context} is not in the kubeconfig (its contexts: ${names(kubeconfig.contexts)})`,
      );
    }
    kubeconfig.setCurrentContext(choice.context);
  }
  if (choice.cluster !== undefined) {
    if (!kubeconfig.getCluster(choice.cluster)) {
      throw new Error(
        `cluster ${choice.cluster} is not in the kubeconfig (its clusters: ${names(kubeconfig.clusters)})`,
      );
    }
    const current = kubeconfig.getCurrentContext();
    kubeconfig.loadFromOptions({
      clusters: kubeconfig.clusters,
      users: kubeconfig.users,
      contexts: kubeconfig.contexts.map((c) => (c.name === current ? { ...c, cluster: choice.cluster as string } : c)),
      currentContext: current,
    });
  }
  return kubeconfig.exportConfig();
}
