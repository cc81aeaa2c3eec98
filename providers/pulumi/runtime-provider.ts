import type * as pulumi from "@pulumi/pulumi";
import type { RuntimeInputs } from "./runtime.js";

/** What a runtime module (runtime.ts, or a first-release kind's file) offers its provider. */
interface Runtime {
  check(
    news: RuntimeInputs,
    olds: RuntimeInputs,
  ): Promise<{ inputs: RuntimeInputs; failures: { property: string; reason: string }[] }>;
  diff(olds: RuntimeInputs, news: RuntimeInputs): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: RuntimeInputs): Promise<{ id: string; outs: Record<string, unknown> }>;
  up(inputs: RuntimeInputs): Promise<{ id: string; outs: Record<string, unknown> }>;
  read(state: RuntimeInputs): Promise<pulumi.dynamic.ReadResult>;
  update(olds: RuntimeInputs, news: RuntimeInputs): Promise<{ id: string; outs: Record<string, unknown> }>;
  destroy(inputs: RuntimeInputs): Promise<void>;
}

/**
 * A Node.js dynamic provider that is a thin shim over the runtime module named by `runtime`. Pulumi
 * serializes the provider into the state and runs it in a separate process; capturing a module object
 * would drag its whole closure into the state, so the provider captures only the runtime's name and
 * imports it when called. `runtime` is a package specifier (`@navique/ai-core/pulumi/runtime`),
 * resolved from the program's directory — the provider process's working directory, where Pulumi's own
 * dynamic-provider host is resolved from too — so the state names no path of the machine that wrote it;
 * or, in states recorded by the first release, a file URL. The kind is an input (`kind`), not part of
 * the provider: one runtime serves all.
 */
export function runtimeProvider(runtime: string): pulumi.dynamic.ResourceProvider {
  const load = async (): Promise<Runtime> => {
    if (runtime.startsWith("file:")) return import(runtime);
    const { createRequire } = await import("node:module");
    const { pathToFileURL } = await import("node:url");
    let resolved: string;
    try {
      resolved = createRequire(`${process.cwd()}/`).resolve(runtime);
    } catch (error) {
      throw new Error(
        `the Pulumi program's directory ${process.cwd()} does not resolve ${runtime} (${(error as Error).message.split("\n")[0]}): install @navique/ai-core in the Pulumi project`,
      );
    }
    return import(pathToFileURL(resolved).href);
  };
  return {
    async check(olds: RuntimeInputs, news: RuntimeInputs) {
      return (await load()).check(news, olds);
    },
    async diff(_id: string, olds: RuntimeInputs, news: RuntimeInputs) {
      return (await load()).diff(olds, news);
    },
    async create(inputs: RuntimeInputs) {
      return (await load()).create(inputs);
    },
    async read(_id: string, state: RuntimeInputs) {
      return (await load()).read(state);
    },
    async update(_id: string, olds: RuntimeInputs, news: RuntimeInputs) {
      return { outs: (await (await load()).update(olds, news)).outs };
    },
    async delete(_id: string, props: RuntimeInputs) {
      await (await load()).destroy(props);
    },
  };
}
