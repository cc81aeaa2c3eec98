/**
 * Writes the files generated from the kinds' schemas besides the CRDs — each kind's spec interface
 * (lib/api/generated/) and reference page (docs/reference/) — as `npm run generate` does. A unit test
 * fails when the committed files differ from what the code generates.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fieldDocFiles } from "./field-doc-files.js";

const root = join(import.meta.dirname, "..", "..");
for (const [path, text] of fieldDocFiles()) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
  process.stdout.write(`wrote ${path}\n`);
}
