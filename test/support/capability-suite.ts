import { ensureNaviqueCrds } from "../../lib/apply/navique-crds.js";
import type { CapabilityEntry } from "../../lib/catalog/capability.js";
import type { HelmCli } from "../../lib/cluster/helm-cli.js";
import type { KubeClient } from "../../lib/cluster/kube-client.js";
import type { ReconcileContext } from "../../lib/engine/context.js";
import { createReconcileContext } from "../../lib/reconcile/context.js";
import {
  CAPABILITY_SUITE_SETUP_MS,
  FIXTURE_SOURCE,
  lockCapabilities,
  resetCapabilities,
  testClient,
  testHelm,
} from "./capabilities.js";
import { applyLicence, removeLicence, TEST_TRUSTED_KEYS, testLicenceToken } from "./licence.js";
import { suiteNamespaces } from "./namespace-content.js";

/** How a suite that installs capabilities starts and ends. */
export interface CapabilitySuiteOptions {
  /**
   * The capabilities uninstalled before the suite (each with its release's records), so that the suite
   * sees the product install them itself; uninstalled again after it.
   */
  readonly capabilities: readonly CapabilityEntry[];
  /**
   * Whether their CRDs go too before the suite (after it they stay: other suites' fixtures may use them).
   * @default false
   */
  readonly crds?: boolean;
  /**
   * The capabilities uninstalled after the suite, when not all of `capabilities` (one another suite needs
   * installed may stay).
   * @default capabilities
   */
  readonly uninstallAfter?: readonly CapabilityEntry[];
  /**
   * The test licence the suite runs under: more resources of a kind than the Community edition allows …
   * @default none: the suite runs under the Community edition (a licence left behind is removed first)
   */
  readonly licence?: Parameters<typeof testLicenceToken>[0];
}

/** What a capability suite's tests work with, set once its beforeAll has run. */
export interface CapabilitySuite {
  readonly client: KubeClient;
  readonly helm: HelmCli;
  /** The engine's context: real helm, the fixture charts, the test licence's keys trusted. */
  readonly context: ReconcileContext;
  /** The suite's namespaces: each emptied and deleted after the suite, with every resource in it finalized. */
  readonly namespaces: ReturnType<typeof suiteNamespaces>;
}

/**
 * The set-up of a suite that installs capabilities on the real plane, registered as its beforeAll and
 * afterAll (call it in the describe block): the capability lock held for the whole suite (capabilities
 * are cluster-wide), the product's CRDs, the capabilities reset, the test licence applied (or none, under
 * Community), the engine's context on the fixture charts; after it, the suite's namespaces discarded, the
 * capabilities reset and the licence removed, whatever part of the set-up had happened, then the lock
 * released.
 */
export function capabilitySuite(options: CapabilitySuiteOptions): CapabilitySuite {
  let client: KubeClient | undefined;
  let helm: HelmCli | undefined;
  let context: ReconcileContext | undefined;
  let unlock: (() => Promise<void>) | undefined;
  const namespaces = suiteNamespaces();
  const afterSetUp = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the capability suite's ${what} is read before its beforeAll ran`);
    return value;
  };

  beforeAll(async () => {
    unlock = await lockCapabilities();
    client = testClient();
    helm = await testHelm();
    await ensureNaviqueCrds(client);
    await resetCapabilities(client, helm, options.capabilities, { crds: options.crds ?? false });
    if (options.licence) await applyLicence(client, testLicenceToken(options.licence));
    else await removeLicence(client);
    context = createReconcileContext({ client, helm, source: FIXTURE_SOURCE, trustedKeys: TEST_TRUSTED_KEYS });
  }, CAPABILITY_SUITE_SETUP_MS);
  afterAll(async () => {
    if (context) await namespaces.discard(context);
    if (client && helm) {
      await resetCapabilities(client, helm, options.uninstallAfter ?? options.capabilities, { crds: false });
      await removeLicence(client);
    }
    await unlock?.();
  }, CAPABILITY_SUITE_SETUP_MS);

  return {
    get client() {
      return afterSetUp("client", client);
    },
    get helm() {
      return afterSetUp("helm", helm);
    },
    get context() {
      return afterSetUp("context", context);
    },
    namespaces,
  };
}
