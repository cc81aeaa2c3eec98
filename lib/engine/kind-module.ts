import type * as z from "zod";
import type { BackendTypes } from "../api/backend-types.js";
import type { Condition } from "../api/conditions.js";
import type { KindDefinition } from "../api/crd.js";
import type { EngineStatus } from "../api/resource-status.js";
import type { Feature } from "../licence/entitlements.js";
import type { Dependency } from "./dependencies.js";
import type { Credentials, KubeObject } from "./objects.js";
import type { OutputsProjection } from "./outputs.js";
import type { Reference } from "./reference-grants.js";
import type { DesiredStep, PlannedEvent } from "./steps.js";
import type { EngineView } from "./view.js";

/** A resource of the product's API as the engine handles it: namespaced, with the engine's status. */
export interface EngineResource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid?: string | undefined;
    readonly generation?: number | undefined;
    readonly resourceVersion?: string | undefined;
    readonly creationTimestamp?: string | undefined;
    readonly deletionTimestamp?: string | undefined;
    readonly finalizers?: readonly string[] | undefined;
    readonly labels?: Readonly<Record<string, string>> | undefined;
    readonly annotations?: Readonly<Record<string, string>> | undefined;
  };
  readonly spec: unknown;
  readonly status?: (Partial<EngineStatus> & { readonly conditions: readonly Condition[] }) | undefined;
}

/**
 * An object kind a kind module may create. Every fact is declared, never guessed: the plural the API
 * serves it under, whether it holds data, whether it is one of the product's own kinds (a member,
 * finalized before its owner) and when it is Ready. The operator watches every kind declared here (the
 * objects carrying the owned-by label) and re-queues their owner: drift of any of them is corrected at
 * once, not at the resync; so a kind is declared here, or its plan may not emit it.
 */
export interface EmittedKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  /** What messages call it: `CNPG Cluster`. @default the kind */
  readonly label?: string;
  /**
   * It may hold data: when no longer desired, the deletion policy recorded on it at creation (the
   * annotation `core.navique.com/deletion-policy`, Retain when absent) decides whether it is deleted or
   * kept and released; `keeps` says which other emitted objects are kept with it.
   */
  readonly stateful?: {
    readonly keeps: (
      kept: KubeObject,
      other: { readonly kind: string; readonly apiVersion: string; readonly current: KubeObject },
    ) => boolean;
  };
  /** How an object of this kind kept with a stateful one is described: the step's note and the Event's phrase. */
  readonly keptWith?: { readonly note: string; readonly phrase: (names: readonly string[]) => string };
  /** One of the product's own kinds: deleted, and awaited, before anything else of its owner. */
  readonly product?: boolean;
}

/** One extra read the desired state needs (an adopt target, a credentials Secret), named by the field it comes from. */
export interface ObservedRead<Id extends string = string> {
  /** Where the result goes in the view. */
  readonly id: Id;
  /** The spec field that names the object: what `--watch-namespaces` checks and messages name. */
  readonly field: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** `object`: the object as stored; `credentials`: a Secret's username/password/host/port, decoded. */
  readonly as: "object" | "credentials";
}

/** What reads put in the view, by id. */
export type Reads = Readonly<Record<string, KubeObject | Credentials | undefined>>;

/** The verdict of a desired state on its phase condition (DatastoreReady, MembersReady …). */
export interface Verdict {
  readonly ok: boolean;
  readonly reason: string;
  readonly message: string;
  /**
   * Waiting cannot clear the cause: only a change by someone can (the spec, an object it names). Reported
   * as the Stalled condition; `pulumi up` fails at once on it. Never for what is merely not there yet — a
   * Secret another tool may still create, a datastore still starting.
   */
  readonly stalled?: boolean;
  /**
   * Not Ready yet, and what it waits for changes slowly and is seen by no watch (pods rolling out of a
   * chart's Deployments): look again after this long rather than at the operator's usual requeue delay.
   */
  readonly requeueAfterMs?: number;
}

/** What a kind wants in the cluster now: PURE, from the resource and what the engine observed. */
export interface Desired<Status> {
  /** Objects to make, in order; the engine stamps the ownership marks and applies them. */
  readonly steps: readonly DesiredStep[];
  readonly verdict: Verdict;
  /** The Ready condition's message once the verdict and the operators are fine. */
  readonly readyMessage?: string;
  /** The kind's own status fields (its connection, provenance, members …). */
  readonly status?: Partial<Status>;
  /** Events the desired state calls for (a credentials Secret re-created), reported with the collection's. */
  readonly events?: readonly PlannedEvent[];
}

/**
 * One kind of the product's API, declared once: everything the engine, the registry's contract tests and
 * every front end need, and one pure decision (`desired`). Only this module names the kind.
 */
export interface KindModule<R extends EngineResource = EngineResource, Status = Record<string, unknown>> {
  readonly definition: KindDefinition;
  /** The stored resource. */
  readonly schema: z.ZodType<R>;
  /** The rules of metadata.name (its length limit, its form): what the front ends check before anything. */
  readonly name: z.ZodType<string>;
  /** The licence: capped (every kind is), and the paid feature it needs, if any. */
  readonly licence: { readonly feature?: Feature };
  /**
   * The backends its `spec.type` names, when it has one: a type declared but not implemented is refused
   * with NotImplemented (lib/engine/not-implemented.ts), by its desired state and at cdk8s synth.
   */
  readonly types?: BackendTypes;
  /** The phase condition its desired state reports on: DatastoreReady, MembersReady … */
  readonly phase: string;
  /** Root capabilities the spec needs now (the engine adds prerequisites). */
  needs(resource: R): readonly string[];
  /** Capabilities a resource stored before `status.needs` existed needed, from what its status recorded. */
  recordedNeeds?(resource: R): readonly string[] | undefined;
  readonly emits: readonly EmittedKind[];
  /** Extra reads for `desired`; only references in the resource's namespace or granted are followed. */
  observes(resource: R): readonly ObservedRead[];
  /**
   * The kinds `observes` may read that no kind emits (a ClusterSecretStore, a SealedSecret: the user's),
   * by their plural: the operator is allowed to get them, nothing more (lib/package/operator-rbac.ts).
   */
  readonly readsKinds?: readonly Pick<EmittedKind, "apiVersion" | "kind" | "plural">[];
  /** The references a ReferenceGrant can open (into other namespaces), resolved against its namespace. */
  references(resource: R): readonly Reference[];
  /**
   * The resources of the product's kinds it cannot do without (lib/engine/dependencies.ts): read into the
   * view, granted like every reference, and gated on — nothing of it is applied before each is Ready.
   */
  dependsOn?(resource: R): readonly Dependency[];
  /**
   * Whether it makes the claims its referrers' dependencies ask for (lib/engine/claims.ts), in the mode
   * it is in: then the engine collects them into the view (`claims`) and the kind publishes each it made
   * in `status.claims`.
   */
  takesClaims?(resource: R): boolean;
  /** The product kinds `dependsOn` may name: a cycle among the kinds is refused when the registry loads. */
  readonly referencesKinds: readonly string[];
  /** The pure decision. */
  desired(resource: R, view: EngineView): Desired<Status>;
  /** Status fields recording what was reached (e.g. mode and type), written once the operators are Ready. */
  reached?(resource: R): Partial<Status>;
  /** Why orphans are collected when nothing more specific applies: a mode change, for instance. */
  changeReason?(resource: R): string | undefined;
  /** Objects holding what was copied through references: deleted when a grant is revoked. */
  copiedThroughReferences?(resource: R): readonly string[];
  /**
   * It makes its objects in the namespace a reference points into (an identity's LiteLLM object beside
   * its Gateway): what it made there is deleted when the grant that allowed it is revoked.
   */
  readonly emitsIntoReferencedNamespaces?: true;
  /** What a Pulumi component exposes (its properties are generated from it), and `navique plan` prints. */
  readonly outputs: OutputsProjection<Status>;
}
