/**
 * Writes the CRDs generated from the zod schemas into the operator chart (`npm run generate`). A unit
 * test fails when the committed files differ from what the schemas generate, so they cannot drift.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crdFiles } from "./crd-files.js";

const target = join(import.meta.dirname, "..", "..", "charts", "navique-ai-core-operator", "crds");
await mkdir(target, { recursive: true });
for (const [name, text] of crdFiles()) {
  await writeFile(join(target, name), text);
  process.stdout.write(`wrote ${join(target, name)}\n`);
}
