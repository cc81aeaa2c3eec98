/**
 * `npm start`: the main job. Synthesizes the example platform (examples/cdk8s) and runs `navique up -f`
 * with it: the target cluster is prepared (the built-in local control plane when none is configured) and
 * reported, then every decision the example would get there is printed, changing nothing.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildApp } from "./cdk8s/app.js";

const dir = mkdtempSync(join(tmpdir(), "navique-up-"));
try {
  buildApp(dir).synth();
  const cli = fileURLToPath(new URL("../lib/cli/main.ts", import.meta.url));
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", cli, "up", "-f", join(dir, "navique-example.yaml"), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
