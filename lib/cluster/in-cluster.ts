import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";

/** Where the kubelet mounts a pod's service account: token, CA bundle and namespace. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Whether this process runs in a pod with a service account mounted, as client-go's InClusterConfig asks. */
export function inCluster(env: NodeJS.ProcessEnv = process.env, directory: string = SERVICE_ACCOUNT_DIR): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(directory, "token")));
}

/**
 * A kubeconfig for the pod's own service account, written to a private file: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the mounted CA bundle, and the token by its file, which helm re-reads
 * as the kubelet rotates it. Both the product's client and helm read kubeconfigs from a
 * file, so the operator reaches its cluster the same way in a pod as anywhere else.
 */
export async function inClusterKubeconfig(
  env: NodeJS.ProcessEnv = process.env,
  directory: string = SERVICE_ACCOUNT_DIR,
): Promise<string> {
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  const namespacePath = join(directory, "namespace");
  const namespace = existsSync(namespacePath) ? (await readFile(namespacePath, "utf8")).trim() : undefined;
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "in-cluster", cluster: { server, "certificate-authority": join(directory, "ca.crt") } }],
    // client-go (helm) reads `tokenFile`; @kubernetes/client-node reads `token-file` (config_types.js).
    users: [
      {
        name: "service-account",
        user: { tokenFile: join(directory, "token"), "token-file": join(directory, "token") },
      },
    ],
    contexts: [
      {
        name: "in-cluster",
        context: { cluster: "in-cluster", user: "service-account", ...(namespace ? { namespace } : {}) },
      },
    ],
    "current-context": "in-cluster",
  };
  const path = join(await mkdtemp(join(tmpdir(), "navique-in-cluster-")), "kubeconfig");
  await writeFile(path, stringify(kubeconfig), { mode: 0o600 });
  return path;
}
