/**
 * Writes the operator's Helm chart — CRDs generated from the zod schemas, the rest from the
 * NaviqueOperator construct — into charts/navique-ai-core-operator (`npm run generate`). A unit test
 * fails when the committed files differ from what the code generates, so they cannot drift.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { operatorChartFiles } from "./operator-chart.js";

const root = join(import.meta.dirname, "..");
const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
const target = join(root, "charts", "navique-ai-core-operator");
// Every file of the chart is generated: one no longer generated goes.
await rm(target, { recursive: true, force: true });
for (const [name, text] of operatorChartFiles(version)) {
  await mkdir(dirname(join(target, name)), { recursive: true });
  await writeFile(join(target, name), text);
  process.stdout.write(`wrote ${join(target, name)}\n`);
}
