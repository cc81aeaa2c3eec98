import type * as pulumi from "@pulumi/pulumi";
import type { StackInputs } from "./stack-runtime.js";

/** Where the provider process finds the runtime: captured as a URL only (see postgres-cluster-provider.ts). */
const RUNTIME = new URL("./stack-runtime.js", import.meta.url).href;

type Runtime = typeof import("./stack-runtime.js");

/** The Node.js dynamic provider of Stack: a thin shim over stack-runtime.ts. */
export const stackProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds: StackInputs, news: StackInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return runtime.check(news);
  },
  async diff(_id: string, olds: StackInputs, news: StackInputs) {
    const keys: (keyof StackInputs)[] = [
      "spec",
      "kubeconfig",
      "helm",
      "chartSource",
      "timeoutSeconds",
      "namespace",
      "name",
    ];
    const differing = keys.filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
    // Another namespace or name is another Stack: replaced, the old one and its members deleted first.
    const replaces = differing.filter((key) => key === "namespace" || key === "name");
    return { changes: differing.length > 0, replaces, deleteBeforeReplace: true };
  },
  async create(inputs: StackInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return runtime.up(inputs);
  },
  async update(_id: string, _olds: StackInputs, news: StackInputs) {
    const runtime: Runtime = await import(RUNTIME);
    return { outs: (await runtime.up(news)).outs };
  },
  async delete(_id: string, props: StackInputs) {
    const runtime: Runtime = await import(RUNTIME);
    await runtime.destroy(props);
  },
};
