import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runUnchecked } from "../../lib/cluster/process.js";
import { FIXTURE_CHARTS } from "./capabilities.js";
import { TEST_KEY_ID, TEST_TRUSTED_KEYS } from "./licence.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");

/**
 * `navique plan` of `inputs` (its arguments naming them: `-f FILE …`) as a CI gate runs it, on the test
 * plane, with the fixture charts and the test licence's key trusted (written into `workDir`, as a user
 * keeps a vendor's key file): its exit code and what it printed.
 */
export async function planTrustingTestKey(inputs: readonly string[], workDir: string) {
  const trustFile = join(workDir, "test-vendor.pem");
  await writeFile(trustFile, TEST_TRUSTED_KEYS.get(TEST_KEY_ID) ?? "");
  return runUnchecked(
    TSX,
    [CLI, "plan", ...inputs, "--chart-source", `dir:${FIXTURE_CHARTS}`, "--trust", `${TEST_KEY_ID}=${trustFile}`],
    { env: { ...process.env, KUBECONFIG: process.env.NAVIQUE_TEST_KUBECONFIG ?? "" } },
  );
}
