import { CapabilityInstaller } from "./lib/apply/capability-installer.js";
import { CERT_MANAGER } from "./lib/catalog/cert-manager.js";
import { CLOUDNATIVE_PG } from "./lib/catalog/cloudnative-pg.js";
import { HelmCli } from "./lib/cluster/helm-cli.js";
import { KubeClient } from "./lib/cluster/kube-client.js";
import { toolchainPaths } from "./lib/local-plane/toolchain-paths.js";

const kc = "/root/.cache/navique-ai-core/planes/local/kubeconfig";
const c = KubeClient.fromFile(kc);
const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig: kc });
const inst = new CapabilityInstaller({ client: c, helm, source: { kind: "directory", path: "test/fixtures/charts" } });
for (let i = 0; i < 5; i++) {
  const d = await inst.ensure("cloudnative-pg");
  console.log(d.map((x) => `${x.capability}:${x.state}:${x.ready}`));
  if (d.length === 2 && d[1]?.ready) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const t0 = Date.now();
await helm.uninstall("cloudnative-pg", "cnpg-system");
console.log("uninstalled", Date.now() - t0);
await c.core.deleteNamespace({ name: "cnpg-system" });
for (const n of CLOUDNATIVE_PG.crds.names) await c.extensions.deleteCustomResourceDefinition({ name: n });
for (let i = 0; i < 40; i++) {
  const crds = (await c.extensions.listCustomResourceDefinition()).items.filter((x) =>
    x.metadata?.name?.includes("cnpg"),
  );
  if (crds.length === 0) {
    console.log("gone after", Date.now() - t0);
    break;
  }
  if (i % 5 === 0)
    for (const crd of crds)
      console.log(
        crd.metadata?.name,
        crd.metadata?.finalizers,
        JSON.stringify(crd.status?.conditions?.filter((x) => x.type === "Terminating")),
      );
  await new Promise((r) => setTimeout(r, 1000));
}
await helm.uninstall("cert-manager", "cert-manager");
