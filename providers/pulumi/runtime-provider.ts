import type * as pulumi from "@pulumi/pulumi";
import type { RuntimeInputs } from "./runtime.js";

/** What a runtime module (runtime.ts, or a first-release kind's file) offers its provider. */
interface Runtime {
  check(news: RuntimeInputs): { inputs: RuntimeInputs; failures: { property: string; reason: string }[] };
  up(inputs: RuntimeInputs): Promise<{ id: string; outs: Record<string, unknown> }>;
  destroy(inputs: RuntimeInputs): Promise<void>;
}

const COMPARED: readonly (keyof RuntimeInputs)[] = [
  "spec",
  "kubeconfig",
  "helm",
  "chartSource",
  "timeoutSeconds",
  "namespace",
  "name",
];

/**
 * A Node.js dynamic provider that is a thin shim over the runtime module at `runtimeUrl`. Pulumi
 * serializes the provider into the state and runs it in a separate process; capturing a module object
 * would drag its whole closure into the state, so the provider captures only the URL and imports the
 * runtime when called. The kind is an input (`kind`), not part of the provider: one runtime serves all.
 */
export function runtimeProvider(runtimeUrl: string): pulumi.dynamic.ResourceProvider {
  return {
    async check(_olds: RuntimeInputs, news: RuntimeInputs) {
      const runtime: Runtime = await import(runtimeUrl);
      return runtime.check(news);
    },
    async diff(_id: string, olds: RuntimeInputs, news: RuntimeInputs) {
      const differing = COMPARED.filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
      // Another namespace or name is another object: replaced, the old one finalized first.
      const replaces = differing.filter((key) => key === "namespace" || key === "name");
      return { changes: differing.length > 0, replaces, deleteBeforeReplace: true };
    },
    async create(inputs: RuntimeInputs) {
      const runtime: Runtime = await import(runtimeUrl);
      return runtime.up(inputs);
    },
    async update(_id: string, _olds: RuntimeInputs, news: RuntimeInputs) {
      const runtime: Runtime = await import(runtimeUrl);
      return { outs: (await runtime.up(news)).outs };
    },
    async delete(_id: string, props: RuntimeInputs) {
      const runtime: Runtime = await import(runtimeUrl);
      await runtime.destroy(props);
    },
  };
}
