import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { inCluster, inClusterKubeconfig } from "../../lib/cluster/in-cluster.js";
import { KubeClient } from "../../lib/cluster/kube-client.js";
import { run } from "../../lib/cluster/process.js";
import { testHelm } from "../support/capabilities.js";

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { token: string } }[];
}

// The operator in a pod reaches its cluster through the service account the kubelet mounts. Played
// here: the directory the kubelet would mount, holding a token the local plane accepts and its CA, and
// the two variables the kubelet sets; the kubeconfig written from them is then used for real, by the
// product's client and by helm.
describe("the in-cluster service account", () => {
  let mount = "";
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    const plane = parse(await readFile(process.env.NAVIQUE_TEST_KUBECONFIG ?? "", "utf8")) as Kubeconfig;
    const [cluster, user] = [plane.clusters[0]?.cluster, plane.users[0]?.user];
    if (!cluster || !user) throw new Error("the test kubeconfig names no cluster or user");
    const server = new URL(cluster.server);
    mount = await mkdtemp(join(tmpdir(), "navique-serviceaccount-"));
    await writeFile(join(mount, "token"), user.token);
    await writeFile(join(mount, "ca.crt"), Buffer.from(cluster["certificate-authority-data"], "base64"));
    await writeFile(join(mount, "namespace"), "navique-system\n");
    env = { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
  });
  afterAll(async () => {
    if (mount) await rm(mount, { recursive: true, force: true });
  });

  it("is recognised only with the kubelet's variables and a mounted token", () => {
    expect(inCluster(env, mount)).toBe(true);
    expect(inCluster({}, mount)).toBe(false);
    expect(inCluster(env, join(mount, "absent"))).toBe(false);
  });

  it("gives a kubeconfig the product's client and helm both reach the cluster with", async () => {
    const path = await inClusterKubeconfig(env, mount);
    try {
      const written = await readFile(path, "utf8");
      expect(written).not.toContain((await readFile(join(mount, "token"), "utf8")).trim());
      expect(parse(written).contexts[0].context.namespace).toBe("navique-system");
      const namespaces = await KubeClient.fromFile(path).core.listNamespace({});
      expect(namespaces.items.map((n) => n.metadata?.name)).toContain("kube-system");
      const helm = await testHelm();
      const listed = await run(helm.binary, ["list", "--all-namespaces", "--kubeconfig", path, "-o", "json"]);
      expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    } finally {
      await rm(join(path, ".."), { recursive: true, force: true });
    }
  });
});
