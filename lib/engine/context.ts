import type { KubernetesObject } from "@kubernetes/client-node";
import type { CapabilityInstaller } from "../capabilities/installer.js";
import type { CapabilityDecision } from "../capabilities/provenance.js";
import type { WorkloadReleaser } from "../capabilities/workload-releaser.js";
import type { KubeClient } from "../cluster/kube-client.js";
import type { Reporter } from "../reporter.js";
import type { AppliedVersions } from "./applied-versions.js";
import type { CapabilityCatalog } from "./capabilities.js";
import type { EngineResource, KindModule } from "./kind-module.js";
import type { CachedInstances, ObserveOptions } from "./observe.js";
import type { PlanContext } from "./plan.js";

/** The core wired for one cluster: what every reconcile, preview and observation runs in. */
export interface ReconcileContext extends CapabilityCatalog {
  readonly client: KubeClient;
  readonly installer: CapabilityInstaller;
  /** Carries out the per-resource workload releases the plans decide (lib/engine/workload-release.ts). */
  readonly releases: WorkloadReleaser;
  /** Every kind the engine reconciles, from the registry (lib/kinds/registry.ts). */
  readonly registry: readonly KindModule[];
  readonly report?: Reporter;
  readonly now?: () => Date;
  /** Public keys licences are verified with. @default the product's TRUSTED_KEYS */
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /** The namespaces an operator serves (--watch-namespaces); undefined: every namespace. */
  readonly watchNamespaces?: readonly string[];
  /** Every resource of a kind as the cap sees it, from a watch cache, when one is complete (ObserveOptions). */
  readonly instances?: (kind: string) => CachedInstances | undefined;
  /** Every resource of a kind as stored, from a watch cache, when one is complete (ObserveOptions). */
  readonly resources?: (kind: string) => readonly KubernetesObject[] | undefined;
  /** The licence singleton's objects from a watch cache, when one is complete (ObserveOptions). */
  readonly licences?: () => readonly KubernetesObject[] | undefined;
  /** One capability's decision, kept for a run of many resources or between watch events (ObserveOptions). */
  readonly detect?: (capability: string) => Promise<CapabilityDecision>;
  /** An object as a watch cache kept current holds it, when one does (ObserveOptions). */
  readonly cached?: ObserveOptions["cached"];
  /** A user's Secret the kind reads, kept between passes while unchanged (ObserveOptions). */
  readonly userSecret?: ObserveOptions["userSecret"];
  /**
   * Told each status a pass wrote and the resourceVersion the write made: a reader of a watch cache
   * (the operator) must not decide from a copy older than that (providers/operator/own-writes.ts).
   */
  readonly statusWritten?: (resource: EngineResource, resourceVersion: string) => void;
  /** The ReferenceGrants of a namespace from a watch cache, when one is complete (ObserveOptions). */
  readonly grants?: ObserveOptions["grants"];
  /**
   * This process's last apply of each object and the resourceVersion it left: an apply of the same body
   * to the object at that version is not sent (lib/engine/applied-versions.ts). Without it, only the
   * managed fields judge.
   */
  readonly appliedVersions?: AppliedVersions;
}

/** What observing needs from a context: the catalog, the registry, the clock and the licence keys. */
export function observeOptions(context: ReconcileContext): ObserveOptions {
  return {
    withPrerequisites: context.withPrerequisites,
    registry: context.registry,
    now: (context.now ?? (() => new Date()))(),
    ...(context.trustedKeys ? { trustedKeys: context.trustedKeys } : {}),
    ...(context.instances ? { instances: context.instances } : {}),
    ...(context.licences ? { licences: context.licences } : {}),
    ...(context.resources ? { resources: context.resources } : {}),
    ...(context.detect ? { detect: context.detect } : {}),
    ...(context.cached ? { cached: context.cached } : {}),
    ...(context.userSecret ? { userSecret: context.userSecret } : {}),
    ...(context.grants ? { grants: context.grants } : {}),
  };
}

/** What planning needs from a context. */
export function planContext(context: ReconcileContext): PlanContext {
  return {
    withPrerequisites: context.withPrerequisites,
    releaseOf: context.releaseOf,
    ...(context.watchNamespaces ? { watchNamespaces: context.watchNamespaces } : {}),
  };
}

/** The module of a kind, from the context's registry; a kind not registered is a programming error. */
export function moduleOf(context: Pick<ReconcileContext, "registry">, kind: string): KindModule {
  const module = context.registry.find((m) => m.definition.kind === kind);
  if (!module) {
    throw new Error(
      `kind ${kind} is not registered (known: ${context.registry.map((m) => m.definition.kind).join(", ")})`,
    );
  }
  return module;
}
