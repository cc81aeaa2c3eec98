/**
 * What the Pulumi dynamic provider runs, inside the provider process, for every kind of the registry.
 * It is imported at call time by the serialized provider (see runtime-provider.ts), so that no module
 * is captured into the Pulumi state: only this package's specifier is. `check` and `diff` — all that a
 * no-op `pulumi up` asks — load nothing more when the inputs are those the state recorded: the kinds'
 * schemas are loaded when `check` has something to judge, and create, update and delete load the core
 * (runtime-actions.ts) when they run. Every call answers asynchronously, as the provider
 * (runtime-provider.ts) awaits it.
 */
import { createRequire } from "node:module";
import { canonicalJson } from "../../lib/api/canonical-json.js";
import { fieldPath } from "../../lib/api/validation.js";
import { moduleOf } from "../../lib/engine/context.js";
import type { KindModule } from "../../lib/engine/kind-module.js";

/**
 * What stands for a value a preview does not know, as the SDK says it. Required, not imported: the
 * provider process has loaded the SDK by `require` already, and an ES-module import of it would make Node
 * scan the sources of the SDK's modules for the names they export (~10 ms of CPU in each provider process).
 */
const { unknownValue } = createRequire(import.meta.url)("@pulumi/pulumi/runtime/rpc.js") as {
  readonly unknownValue: string;
};

/**
 * What every dynamic resource of the product is told about its cluster. Nothing of it is a path of the
 * machine unless the user chose one: `kubeconfig` is a kubeconfig's content (a secret in the state), or
 * absent for the ambient kubeconfig of the provider process; `helm` is absent unless configured, and
 * then found on PATH when it runs; `chartSource` is absent unless the component was given one (then
 * $NAVIQUE_CHART_SOURCE is read where the provider runs), a mirror directory relative to the project's
 * directory. States of the first release hold a kubeconfig path: still read.
 */
export interface ClusterInputs {
  readonly kubeconfig?: string;
  readonly helm?: string;
  readonly chartSource?: string;
}

/**
 * The dynamic resource's inputs, as stored in the Pulumi state (no secret among them). `kind` names the
 * registered kind; a resource recorded by the first release has none, and its runtime file says it.
 */
export interface RuntimeInputs extends ClusterInputs {
  readonly kind?: string;
  readonly namespace: string;
  readonly name: string;
  readonly spec: unknown;
  readonly timeoutSeconds: number;
  /** Recorded by the provider (an output, not an input): its create made the namespace, which destroy deletes again. */
  readonly createdNamespace?: boolean;
  /**
   * The namespace is a Namespace resource of the program (providers/pulumi/program-namespace.ts): `pulumi
   * destroy` deletes it after this resource, and what deletionPolicy Retain keeps there with it — said by
   * the destroy. Not compared by `diff`: a state recorded before it knows it from its next update.
   */
  readonly namespaceResource?: boolean;
}

/** The inputs whose change is a change of the resource itself. */
const COMPARED: readonly (keyof RuntimeInputs)[] = ["spec", "chartSource", "timeoutSeconds", "namespace", "name"];

/**
 * Pulumi's `diff`. How the cluster is reached (the kubeconfig's path or content, the helm binary) is not
 * the resource: another path to the same API server changes nothing; another API server is another
 * cluster, and the resource is replaced there (the old one finalized first), as pulumi-kubernetes does
 * when its provider's cluster changes. Another namespace or name is another object: replaced too.
 */
export async function diffInputs(olds: RuntimeInputs, news: RuntimeInputs) {
  // Key order aside: a spec read back from the cluster (`pulumi refresh`) lists its keys as the apiserver does.
  const differing: string[] = COMPARED.filter((key) => canonicalJson(olds[key]) !== canonicalJson(news[key]));
  if (olds.kubeconfig !== news.kubeconfig) {
    // Read only when they differ: the same kubeconfig (or the ambient one twice) is the same cluster. The
    // YAML parser that reads them is loaded then only.
    const { clusterServer } = await import("../../lib/cluster/cluster-server.js");
    const [before, after] = [clusterServer(olds.kubeconfig), clusterServer(news.kubeconfig)];
    if (before !== undefined && after !== undefined && before !== after) differing.push("kubeconfig");
  }
  const replaces = differing.filter((key) => key === "namespace" || key === "name" || key === "kubeconfig");
  return { changes: differing.length > 0, replaces, deleteBeforeReplace: true };
}

/** The inputs `check` judges, with the kind that judges them. */
const CHECKED: readonly (keyof RuntimeInputs)[] = ["kind", "name", "namespace", "spec"];

/**
 * Whether `check` has nothing to judge: the inputs it judges are those the state recorded (`olds`), which
 * passed it then. A component's name, namespace and spec reach its dynamic resource as the component
 * parsed them in this very run (component-inputs.ts), so parsing them again would find nothing new; what
 * a preview did not know (an output of a resource still to be created) is never equal to a recorded value.
 */
export function unchangedSinceRecorded(olds: RuntimeInputs | undefined, news: RuntimeInputs): boolean {
  return olds !== undefined && CHECKED.every((key) => canonicalJson(olds[key]) === canonicalJson(news[key]));
}

/**
 * Pulumi's `check`: every problem of the name, the namespace and the spec as a `{property, reason}`
 * failure, the property being the field path (`spec.managed.instances`).
 */
export async function checkInputs<I extends RuntimeInputs>(
  module: KindModule,
  news: I,
): Promise<{ inputs: I; failures: { property: string; reason: string }[] }> {
  const { name, namespace, spec } = news;
  // Loaded when there is something to judge only: with zod, which a no-op `pulumi up` never needs here.
  const { resourceInputSchema } = await import("./resource-inputs.js");
  const parsed = resourceInputSchema(module).safeParse({ name, namespace, spec }, { reportInput: true });
  if (parsed.success) return { inputs: news, failures: [] };
  // A preview does not know the outputs of resources still to be created: what stands for one is checked at `up`.
  const known = parsed.error.issues.filter((issue) => (issue as { input?: unknown }).input !== unknownValue);
  return {
    inputs: news,
    failures: known.map((issue) => ({ property: fieldPath(issue.path), reason: issue.message })),
  };
}

/** The core's actions, loaded the first time one runs. */
const actions = () => import("./runtime-actions.js");

/**
 * The kind a runtime call is about. The registry, which builds the schemas of every kind, is loaded then
 * only: a no-op's `check` and `diff` need none of it.
 */
async function kindOf(inputs: RuntimeInputs, legacyRuntime: string): Promise<KindModule> {
  const { LEGACY_PULUMI_RUNTIMES, REGISTRY } = await import("../../lib/kinds/registry.js");
  const kind = inputs.kind ?? LEGACY_PULUMI_RUNTIMES[legacyRuntime];
  if (!kind) throw new Error(`the dynamic resource ${inputs.namespace}/${inputs.name} names no kind`);
  return moduleOf({ registry: REGISTRY.kinds }, kind);
}

/** The runtime of one file: `runtime` (every kind, and the first release's kind recorded under it) or a first-release kind's own. */
export function runtimeFor(legacyRuntime: string) {
  return {
    /**
     * Pulumi's `check`. `olds`, the inputs the state records, is given by the provider of this release
     * (runtime-provider.ts); the first release's recorded providers give `news` only, and are judged.
     */
    async check(news: RuntimeInputs, olds?: RuntimeInputs) {
      if (unchangedSinceRecorded(olds, news)) return { inputs: news, failures: [] };
      return checkInputs(await kindOf(news, legacyRuntime), news);
    },

    diff: diffInputs,

    /**
     * Create or update: records the desired state as the custom resource (so kubectl, the operator and
     * every front end see the same object), then reconciles it — and its members: Pulumi runs no operator
     * — pass after pass until Ready.
     */
    async up(inputs: RuntimeInputs, trustedKeys?: ReadonlyMap<string, string>) {
      return (await actions()).up(await kindOf(inputs, legacyRuntime), inputs, trustedKeys);
    },

    /** Pulumi's `update`: `up`, keeping what the state records of the namespace. */
    async update(olds: RuntimeInputs, news: RuntimeInputs, trustedKeys?: ReadonlyMap<string, string>) {
      return (await actions()).update(await kindOf(news, legacyRuntime), olds, news, trustedKeys);
    },

    /** Pulumi's `read` (`pulumi refresh`): the custom resource's live spec and outputs (runtime-actions.ts). */
    async read(state: RuntimeInputs, trustedKeys?: ReadonlyMap<string, string>) {
      return (await actions()).read(await kindOf(state, legacyRuntime), state, trustedKeys);
    },

    /** Create: `up`; a failed one removes the custom resource it recorded (runtime-actions.ts). */
    async create(inputs: RuntimeInputs, trustedKeys?: ReadonlyMap<string, string>) {
      return (await actions()).create(await kindOf(inputs, legacyRuntime), inputs, trustedKeys);
    },

    /** Delete: deletes the custom resource and runs its finalization (members first, release rules, deletion policy) to the end. */
    async destroy(inputs: RuntimeInputs, trustedKeys?: ReadonlyMap<string, string>) {
      await (await actions()).destroy(await kindOf(inputs, legacyRuntime), inputs, trustedKeys);
    },
  };
}

const generic = runtimeFor("runtime");
export const check = generic.check;
export const diff = generic.diff;
export const create = generic.create;
export const up = generic.up;
export const read = generic.read;
export const update = generic.update;
export const destroy = generic.destroy;
