import type { CapabilityInstallObserver } from "../capabilities/install-observer.js";
import { CapabilityInstaller } from "../capabilities/installer.js";
import { WorkloadReleaser } from "../capabilities/workload-releaser.js";
import { CATALOG, capability, withPrerequisites } from "../catalog/catalog.js";
import type { ChartSource } from "../catalog/chart-source.js";
import type { HelmCli } from "../cluster/helm-cli.js";
import type { KubeClient } from "../cluster/kube-client.js";
import { AppliedVersions } from "../engine/applied-versions.js";
import type { ReconcileContext } from "../engine/context.js";
import { REGISTRY } from "../kinds/registry.js";
import type { Reporter } from "../reporter.js";

export type { ReconcileContext } from "../engine/context.js";

/** Wires the core for one cluster: client, helm, chart source, the catalog and the registry. Every front end starts here. */
export function createReconcileContext(options: {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  readonly source?: ChartSource;
  readonly report?: Reporter;
  readonly now?: () => Date;
  readonly trustedKeys?: ReadonlyMap<string, string>;
  /** The namespaces an operator serves (--watch-namespaces); undefined: every namespace. */
  readonly watchNamespaces?: readonly string[];
  /** Told how each capability install, upgrade or restore ended (the operator's metrics). @default none */
  readonly installObserver?: CapabilityInstallObserver;
}): ReconcileContext {
  const installer = new CapabilityInstaller({
    client: options.client,
    helm: options.helm,
    ...(options.source ? { source: options.source } : {}),
    ...(options.report ? { report: options.report } : {}),
    ...(options.installObserver ? { observer: options.installObserver } : {}),
  });
  const releases = new WorkloadReleaser({
    client: options.client,
    helm: options.helm,
    ...(options.source ? { source: options.source } : {}),
    ...(options.report ? { report: options.report } : {}),
  });
  return {
    client: options.client,
    installer,
    releases,
    appliedVersions: new AppliedVersions(),
    registry: REGISTRY.kinds,
    withPrerequisites: (name) => withPrerequisites(name, CATALOG),
    releaseOf: (name) => capability(name, CATALOG).release,
    ...(options.report ? { report: options.report } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.trustedKeys ? { trustedKeys: options.trustedKeys } : {}),
    ...(options.watchNamespaces ? { watchNamespaces: options.watchNamespaces } : {}),
  };
}
