// Runs once before the cluster and e2e projects. Jest loads global setup outside its own module system
// (no TypeScript transform of the files it imports), so this plain script asks the plane's CLI, run
// through tsx, to start the local control plane or reuse the running one, and hands the kubeconfig and
// the toolchain's PATH to the test workers through the environment they inherit. The plane is left
// running for the next run; `npm run toolchain -- stop` stops it. NAVIQUE_TEST_PLANE names another plane
// than `local`, so that two checkouts can run their suites side by side, each on a plane of its own.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function globalSetup() {
  const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
  const cli = join(process.cwd(), "lib", "local-plane", "cli.ts");
  const name = ["--name", process.env.NAVIQUE_TEST_PLANE ?? "local"];
  const kubeconfig = execFileSync(tsx, [cli, "start", ...name], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  const exports = execFileSync(tsx, [cli, "env", ...name], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const path = /^export PATH=(.*):\$PATH$/m.exec(exports)?.[1];
  process.env.KUBECONFIG = kubeconfig;
  process.env.NAVIQUE_TEST_KUBECONFIG = kubeconfig;
  if (path) process.env.PATH = `${path}:${process.env.PATH ?? ""}`;
}
