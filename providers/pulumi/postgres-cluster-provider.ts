import type * as pulumi from "@pulumi/pulumi";
import type { PostgresClusterInputs } from "./runtime.js";

/**
 * Where the provider process finds the runtime. Pulumi serializes the provider below into the state and
 * runs it in a separate process; capturing a module object would drag its whole closure into the state,
 * so the provider captures only this URL and imports the runtime when called.
 */
const RUNTIME = new URL("./runtime.js", import.meta.url).href;

type Runtime = typeof import("./runtime.js");

/** The Node.js dynamic provider of PostgresCluster: a thin shim over runtime.ts. */
export const postgresClusterProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: PostgresClusterInputs, news: PostgresClusterInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return runtime.check(news);
  },
  async diff(_id: string, olds: PostgresClusterInputs, news: PostgresClusterInputs) {
    const keys: (keyof PostgresClusterInputs)[] = [
      "spec",
      "kubeconfig",
      "helm",
      "chartSource",
      "timeoutSeconds",
      "namespace",
      "name",
    ];
    const differing = keys.filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
    // Another namespace or name is another object: replaced, the old one finalized first.
    const replaces = differing.filter((key) => key === "namespace" || key === "name");
    return { changes: differing.length > 0, replaces, deleteBeforeReplace: true };
  },
  async create(inputs: PostgresClusterInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return runtime.up(inputs);
  },
  async update(_id: string, _olds: PostgresClusterInputs, news: PostgresClusterInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return { outs: (await runtime.up(news)).outs };
  },
  async delete(_id: string, props: PostgresClusterInputs) {
    const runtime: Runtime = await import(RUNTIME);
    await runtime.destroy(props);
  },
};
