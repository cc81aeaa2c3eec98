import type { CapabilityDecision } from "../capabilities/provenance.js";
import type { Instance } from "../licence/enforce.js";
import type { Entitlements } from "../licence/entitlements.js";
import type { Claim, ClaimedView } from "./claims.js";
import type { Desired, Reads } from "./kind-module.js";
import type { Credentials, KubeObject } from "./objects.js";
import type { ObservedGrant } from "./reference-grants.js";
import type { ObservedNamespace } from "./retained-with-namespace.js";

/** A resource of any kind that needs capabilities now: what reference counts are made of. */
export interface Consumer {
  /** `Kind namespace/name`. */
  readonly key: string;
  readonly needs: readonly string[];
}

/** What the engine observed for one resource: everything a plan is decided from, and nothing else. */
export interface EngineView {
  /** Decisions for the needed capabilities and their prerequisites, prerequisites first; empty when none is needed. */
  readonly capabilities: readonly CapabilityDecision[];
  /**
   * Every resource of every registered kind that needs a capability, when this pass may release one
   * (otherwise empty: nothing is counted that no decision uses).
   */
  readonly consumers: readonly Consumer[];
  /** Current state of the objects the resource emitted before or wants to emit, by objectKey. */
  readonly objects: ReadonlyMap<string, KubeObject>;
  /** The kind's own reads (`observes`), by id; absent: not found, or not followed. */
  readonly reads?: Reads;
  /**
   * The resources its dependencies name (lib/engine/dependencies.ts), as stored, by the referring field;
   * absent: not found, or not followed (outside its namespace without a grant).
   */
  readonly dependencies?: Readonly<Record<string, KubeObject>>;
  /** The claims its referrers make on it, when its kind takes claims (lib/engine/claims.ts). */
  readonly claims?: readonly Claim[];
  /** Its own claims as their targets published them, with their credentials, by the dependency's field. */
  readonly claimed?: Readonly<Record<string, ClaimedView>>;
  /**
   * The credentials its dependencies' targets publish (the Secret each `status.connection` names), for
   * those declaring `credentials`, decoded, by the dependency's field; absent: not published, or not found.
   */
  readonly connectionCredentials?: Readonly<Record<string, Credentials>>;
  /**
   * The ReferenceGrants of every namespace the resource's references point into (none when they all stay
   * in its namespace). Absent: none observed, so no reference into another namespace is honoured.
   */
  readonly referenceGrants?: readonly ObservedGrant[];
  /**
   * The resource's namespace while the resource is being deleted and its kind may keep data: whether the
   * namespace goes too, and then the claims of its volumes (lib/engine/observe-namespace.ts). Absent
   * otherwise, or when it cannot be read.
   */
  readonly namespace?: ObservedNamespace;
  /** The entitlements in force, and every resource of the kind as the cap sees it (this one included). */
  readonly licence: {
    readonly entitlements: Entitlements;
    readonly instances: readonly Instance[];
    /** How many instances come before one, from an order computed once (capOrder); undefined: not in it. */
    readonly ahead?: (subject: Instance) => number | undefined;
  };
}

/**
 * A view as observeResource returns it: with the desired state decided from it, so that the plan asks the
 * kind once per pass (lib/engine/observe.ts). A view made otherwise (a test's) has none: the plan asks.
 */
export interface ObservedView extends EngineView {
  readonly desired?: Desired<unknown>;
}
