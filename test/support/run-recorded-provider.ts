/**
 * Runs the serialized providers a Pulumi state records, as the Node.js dynamic-provider host of
 * @pulumi/pulumi runs them (cmd/dynamic-provider/index.js: `requireFromString(props.__provider).handler()`),
 * calling `check` and then `create` with each dynamic resource's recorded inputs: what the `pulumi up`
 * that made the state ran for it. Run in a process of its own, under the same Node options as the
 * provider host (`--import tsx`), since the providers import TypeScript sources by URL.
 *
 * Usage: node --import tsx test/support/run-recorded-provider.ts STATE_FILE
 * Prints one JSON line per resource: its URN, and the id and outputs `create` returned, less the outputs
 * the state keeps secret.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as pulumi from "@pulumi/pulumi";
import { dynamicResources, SERIALIZED_PROVIDER_KEY } from "./legacy-pulumi-state.js";

const [stateFile] = process.argv.slice(2);
if (!stateFile) throw new Error("usage: run-recorded-provider.ts STATE_FILE");

// The very module the provider host deserializes with, resolved from the host itself.
const host = createRequire(import.meta.url).resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
const requireFromString = createRequire(host)("require-from-string") as (code: string) => {
  handler: () => pulumi.dynamic.ResourceProvider;
};

for (const resource of dynamicResources(JSON.parse(readFileSync(stateFile, "utf8")))) {
  const inputs = resource.inputs ?? {};
  const provider = requireFromString(String(inputs[SERIALIZED_PROVIDER_KEY])).handler();
  const checked = provider.check ? await provider.check({}, inputs) : { inputs, failures: [] };
  if (checked.failures?.length) {
    throw new Error(`${resource.urn}: check failed: ${JSON.stringify(checked.failures)}`);
  }
  if (!provider.create) throw new Error(`${resource.urn}: the recorded provider has no create`);
  const { id, outs = {} } = await provider.create({
    ...checked.inputs,
    [SERIALIZED_PROVIDER_KEY]: inputs[SERIALIZED_PROVIDER_KEY],
  });
  const secret = new Set([...(resource.additionalSecretOutputs ?? []), SERIALIZED_PROVIDER_KEY]);
  const shown = Object.fromEntries(Object.entries(outs as Record<string, unknown>).filter(([key]) => !secret.has(key)));
  process.stdout.write(`${JSON.stringify({ urn: resource.urn, id, outputs: shown })}\n`);
}
