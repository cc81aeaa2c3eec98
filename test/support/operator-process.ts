import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { FIXTURE_CHARTS } from "./capabilities.js";

/**
 * Starts `navique operator` in its own process, as users run it, against the test plane with the fixture
 * chart mirror and a 2-second resync. Its output accumulates in `output()`. `kubeconfig` gives it another
 * identity than the plane's administrator. @default the plane's kubeconfig
 */
export function startOperatorProcess(options: { readonly kubeconfig?: string } = {}): {
  readonly process: ChildProcess;
  readonly output: () => string;
} {
  const tsx = join(process.cwd(), "node_modules", ".bin", "tsx");
  const cli = join(process.cwd(), "lib", "cli", "main.ts");
  let output = "";
  const child = spawn(
    tsx,
    [
      cli,
      "operator",
      "--kubeconfig",
      options.kubeconfig ?? process.env.NAVIQUE_TEST_KUBECONFIG ?? "",
      "--chart-source",
      `dir:${FIXTURE_CHARTS}`,
      "--resync",
      "2",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { process: child, output: () => output };
}
