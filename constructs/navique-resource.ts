import { type ApiObject, Chart } from "cdk8s";
import type { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { referenceFields } from "../lib/api/reference-fields.js";
import { namespaceName } from "../lib/api/refs.js";
import { checkInput } from "../lib/api/validation.js";
import { licenceRefusal } from "../lib/engine/admission.js";
import { moduleOf } from "../lib/engine/context.js";
import { allReferences } from "../lib/engine/dependencies.js";
import { referrerOf } from "../lib/engine/gates.js";
import type { EngineResource, KindModule } from "../lib/engine/kind-module.js";
import { mayHaveMembers, membersIn } from "../lib/engine/members.js";
import { notImplemented } from "../lib/engine/not-implemented.js";
import { grantsToCreate, REFERENCE_NOT_PERMITTED, ungrantedReferences } from "../lib/engine/reference-grants.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { enforceFeature } from "../lib/licence/enforce.js";
import type { Entitlements } from "../lib/licence/entitlements.js";
import { resolveEntitlements } from "../lib/licence/resolve.js";
import {
  type AppDeclarations,
  appChanged,
  appDeclarations,
  type DeclaredResource,
  type DeclaresResources,
} from "./app-declarations.js";
import { PropsProblems } from "./props-problems.js";
import { KIND_MARK, type KindConstruct, resolveReferences } from "./references.js";
import { ResourceObject } from "./resource-object.js";

/** What every construct of a registered kind takes, beside its spec. */
export interface NaviqueResourceProps {
  /** Name of the resource. @default the construct's id */
  readonly name?: string;
  /** Namespace of the resource. @default the chart's, else none (kubectl's) */
  readonly namespace?: string;
  /** Labels written on the custom resource. @default none */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Whether the grants its references into other namespaces need already exist in the cluster (made by
   * those namespaces' owners), so that synth does not look for them among the app's grant constructs. The
   * operator still checks the cluster's grants and refuses without them.
   * @default false: every reference into another namespace must be granted by a grant construct of this app
   */
  readonly grantedInCluster?: boolean;
}

/** The Community entitlements, judged now: what an app without a NaviqueLicense gets. */
const community = () => resolveEntitlements(undefined, { now: new Date() });

/** Whether `path` is `field` or a field inside it. */
const within = (path: string, field: string) =>
  path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);

/**
 * The construct of any registered kind, for GitOps: the custom resource synthesized as written, its
 * references resolved, its defaults left to the CRD (the schema's, applied by the apiserver: ADR 0044).
 * Everything is judged at synth, where cdk8s reports every construct's problems in one error, each with
 * its construct path: name, namespace and spec as the kind's schemas parse them (and each reference as
 * the kind its field names), then the checks the operator would make that need no cluster — a backend
 * type declared but not implemented, the licence (feature and caps, over the app's instances of every
 * kind, its members included) and the grants its references into other namespaces need.
 */
export class NaviqueResource<K extends string = string>
  extends ResourceObject
  implements DeclaresResources, KindConstruct<K>
{
  /** The kind of the resource: what a reference to it checks. */
  declare readonly kind: K;
  readonly [KIND_MARK]: K;
  /** The namespace the resource lands in: its own, else its chart's, else none (kubectl's). */
  readonly namespace: string | undefined;
  /** The resource as stored, when its props are valid: what the engine's decisions are made on. */
  private readonly resource: EngineResource | undefined;
  /** Its kind's module, from the registry. */
  private readonly module: KindModule;

  /**
   * Each kind's class (./kinds.ts) is generated from the registry: it names the kind and its props' spec
   * type, read from the module, and passes the rest here.
   */
  protected constructor(
    scope: Construct,
    id: string,
    kind: K,
    props: NaviqueResourceProps & { readonly spec?: unknown },
  ) {
    const module = moduleOf({ registry: REGISTRY.kinds }, kind);
    const problems = new PropsProblems();
    const name = problems.take(checkInput(module.name, props.name ?? id, "name")) ?? props.name ?? id;
    const ownNamespace =
      props.namespace === undefined
        ? undefined
        : problems.take(checkInput(namespaceName, props.namespace, "namespace"));
    // Without one of its own, the resource lands in its chart's namespace (cdk8s writes it at synth): the
    // synth-time checks judge it there.
    const namespace = ownNamespace ?? Chart.of(scope).namespace;
    // Constructs standing for references become the references they mean; the referrer depends on them.
    const references = resolveReferences(props.spec ?? {}, namespace, referenceFields(module.definition.spec));
    problems.add(...references.problems);
    const parsed = checkInput(module.definition.spec, references.spec, "spec");
    // A construct refused for a field leaves the field empty: that is its problem, not the schema's.
    if (!parsed.ok) {
      const refused = references.problems.map((p) => p.path);
      problems.add(...parsed.problems.filter((p) => !refused.some((field) => within(p.path, field))));
    }
    // The construct is the API object itself: one construct per resource, half the tree cdk8s walks at
    // synth. Its spec as written: its defaults are the CRD's, written by the apiserver (ADR 0044).
    super(scope, id, {
      apiVersion: API_GROUP_VERSION,
      kind,
      metadata: {
        name,
        ...(props.namespace ? { namespace: props.namespace } : {}),
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      spec: references.spec,
    });
    this[KIND_MARK] = kind;
    this.module = module;
    this.namespace = namespace;
    for (const dependency of references.dependencies) this.addDependency(dependency);
    // The resource as the operator will read it (in its chart's namespace, which may be the one at fault).
    this.resource =
      problems.problems.length > 0 || !parsed.ok
        ? undefined
        : problems.take(
            checkInput(module.schema, {
              apiVersion: API_GROUP_VERSION,
              kind,
              metadata: { name, namespace: namespace ?? "default" },
              spec: parsed.data,
            }),
          );
    appChanged(this);
    this.node.addValidation({
      validate: () => {
        if (!this.resource) return problems.lines(kind);
        const app = appDeclarations(this, community);
        return [
          ...this.typeProblems(this.resource),
          ...this.licenceProblems(this.resource, app),
          ...this.compositeProblems(this.resource, app),
          ...(props.grantedInCluster ? [] : this.grantProblems(this.resource, app)),
        ];
      },
    });
  }

  /** The resource's API object: the construct itself. */
  get apiObject(): ApiObject {
    return this;
  }

  /** Itself, and — when the licence lets it create them — its members, each as the resource of its own kind. */
  declaredResources(entitlements: Entitlements): DeclaredResource[] {
    // Props that are invalid declare nothing: their problems are reported instead.
    if (!this.resource) return [];
    const self = { module: this.module, resource: this.resource };
    const desired = this.compositeDesired(this.resource, entitlements);
    if (!desired) return [self];
    const registry = { registry: REGISTRY.kinds };
    const members = membersIn(registry, desired).map((member) => {
      const module = moduleOf(registry, member.kind);
      return { module, resource: module.schema.parse(member) };
    });
    return [self, ...members];
  }

  /**
   * The desired state of a resource that may have members (a composite), as it would be in an empty cluster
   * under the app's licence; undefined for a kind that can have none (it is asked only for its members),
   * or when the licence skips it.
   */
  private compositeDesired(resource: EngineResource, entitlements: Entitlements) {
    const { feature } = this.module.licence;
    if (feature && !enforceFeature(entitlements, feature, "").allowed) return undefined;
    if (!mayHaveMembers({ registry: REGISTRY.kinds }, this.module)) return undefined;
    return this.module.desired(resource, {
      capabilities: [],
      consumers: [],
      objects: new Map(),
      licence: { entitlements, instances: [] },
    });
  }

  /**
   * What stalls a composite before anything exists — its desired state cannot go on without a change
   * (consumers it wires itself, under a licence without auto-wiring): the operator would say so at once, so synth
   * does. Waiting for members to become Ready is not one.
   */
  private compositeProblems(resource: EngineResource, app: AppDeclarations): string[] {
    const desired = this.compositeDesired(resource, app.entitlements ?? community());
    return desired?.verdict.stalled
      ? [`${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}: ${desired.verdict.message}`]
      : [];
  }

  /**
   * The licence's word on it and on each of its members, in the same order as the operator's: the
   * feature, then the cap over the app's instances of the kind, in declaration order. The operator still
   * decides in the cluster, where older instances may exist.
   */
  private licenceProblems(resource: EngineResource, app: AppDeclarations): string[] {
    const entitlements = app.entitlements ?? community();
    const declared = app.byConstruct.get(this) ?? [];
    const problems: string[] = [];
    for (const [index, declaration] of declared.entries()) {
      const decideCap = app.caps.get(declaration.resource.kind);
      // With the cap's decisions ordered, the instances are only searched for the resource's own: given
      // alone, found at once (the whole list, searched for each resource, made synth quadratic).
      const own = app.instanceOf(declaration.resource);
      const instances = decideCap ? (own ? [own] : []) : (app.instances.get(declaration.resource.kind) ?? []);
      const refusal = licenceRefusal(
        declaration.module,
        declaration.resource,
        { licence: { entitlements, instances } },
        decideCap,
      );
      if (!refusal) continue;
      // The engine's message names the resource (`Kind namespace/name is refused: …`); a member's, the member.
      const self = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
      problems.push(index === 0 ? refusal.message : `${self}: its member would be refused: ${refusal.message}`);
      if (index === 0) break;
    }
    return problems;
  }

  /** A backend type its kind declares but does not implement: refused as the operator would (NotImplemented). */
  private typeProblems(resource: EngineResource): string[] {
    const refused = notImplemented(this.module.types, resource.spec);
    return refused ? [`${resource.kind} ${refused.message}`] : [];
  }

  /**
   * Synth-time grant check: cdk8s cannot see the cluster, so the references into other namespaces must be
   * granted by the app's own grant constructs, by the same decision the operator makes.
   */
  private grantProblems(resource: EngineResource, app: AppDeclarations): string[] {
    const referrer = referrerOf(resource);
    const ungranted = ungrantedReferences(referrer, allReferences(this.module, resource), app.grants);
    if (ungranted.length === 0) return [];
    const fields = ungranted.map((r) => `${r.field} (namespace ${r.namespace})`).join(" and ");
    const kind = this.module.definition.kind;
    const grant = REGISTRY.grants.kind;
    return [
      `${kind} ${fields} ${ungranted.length > 1 ? "point" : "points"} into another namespace, and no ${grant} of this app grants it: the operator would refuse it (${REFERENCE_NOT_PERMITTED}). Declare ${grantsToCreate(referrer, ungranted).join("; and ")}, with the ${grant} construct; or, when that grant already exists in the cluster, set grantedInCluster: true on this ${kind}`,
    ];
  }
}
