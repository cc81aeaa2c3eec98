import { ApiObject, Chart } from "cdk8s";
import { Construct } from "constructs";
import { API_GROUP_VERSION } from "../lib/api/group.js";
import { namespaceName } from "../lib/api/refs.js";
import { parseInput } from "../lib/api/validation.js";
import { licenceRefusal } from "../lib/engine/admission.js";
import { referrerOf } from "../lib/engine/gates.js";
import type { EngineResource, KindModule } from "../lib/engine/kind-module.js";
import { membersIn } from "../lib/engine/members.js";
import { grantsToCreate, REFERENCE_NOT_PERMITTED, ungrantedReferences } from "../lib/engine/reference-grants.js";
import { REGISTRY } from "../lib/kinds/registry.js";
import { enforceFeature } from "../lib/licence/enforce.js";
import type { Entitlements } from "../lib/licence/entitlements.js";
import { resolveEntitlements } from "../lib/licence/resolve.js";
import { appChanged, appDeclarations, type DeclaredResource, type DeclaresResources } from "./app-declarations.js";
import { resolveReferences } from "./references.js";

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

/**
 * The construct of any registered kind, for GitOps: name, namespace and spec parsed by the kind's schemas
 * at construction (every problem named with the construct path and the field), the custom resource
 * synthesized with the schema's defaults written out, and at synth the checks the operator would make
 * that need no cluster — the licence (feature and caps, over the app's instances of every kind, its
 * members included) and the grants its references into other namespaces need.
 */
export class NaviqueResource extends Construct implements DeclaresResources {
  readonly apiObject: ApiObject;
  readonly name: string;
  readonly namespace: string | undefined;
  /** The resource as stored: what the engine's decisions are made on. */
  private readonly resource: EngineResource;

  constructor(
    scope: Construct,
    id: string,
    private readonly module: KindModule,
    props: NaviqueResourceProps & { readonly spec: unknown },
  ) {
    super(scope, id);
    const { kind } = module.definition;
    const where = `${kind} at ${this.node.path}`;
    this.name = parseInput(module.name, props.name ?? id, where, "name");
    const namespace =
      props.namespace === undefined ? undefined : parseInput(namespaceName, props.namespace, where, "namespace");
    // Without one of its own, the resource lands in its chart's namespace (cdk8s writes it at synth): the
    // synth-time checks judge it there.
    this.namespace = namespace ?? Chart.of(this).namespace;
    // Constructs standing for references become the references they mean; the referrer depends on them.
    const references = resolveReferences(props.spec, this.namespace);
    const spec = parseInput(module.definition.spec, references.spec, where, "spec");
    this.apiObject = new ApiObject(this, "Resource", {
      apiVersion: API_GROUP_VERSION,
      kind,
      metadata: {
        name: this.name,
        ...(namespace ? { namespace } : {}),
        ...(props.labels ? { labels: { ...props.labels } } : {}),
      },
      // The parsed spec: the schema's defaults are written out, so the YAML says exactly what runs.
      spec,
    });
    for (const dependency of references.dependencies) this.apiObject.addDependency(dependency);
    this.resource = module.schema.parse({
      apiVersion: API_GROUP_VERSION,
      kind,
      metadata: { name: this.name, namespace: this.namespace ?? "default" },
      spec,
    });
    appChanged(this);
    this.node.addValidation({ validate: () => this.licenceProblems() });
    if (!props.grantedInCluster) this.node.addValidation({ validate: () => this.grantProblems() });
  }

  /** Itself, and — when the licence lets it create them — its members, each as the resource of its own kind. */
  declaredResources(entitlements: Entitlements): DeclaredResource[] {
    const self = { module: this.module, resource: this.resource };
    const { feature } = this.module.licence;
    if (feature && !enforceFeature(entitlements, feature, "").allowed) return [self];
    const desired = this.module.desired(this.resource, {
      capabilities: [],
      consumers: [],
      objects: new Map(),
      licence: { entitlements, instances: [] },
    });
    const members = membersIn({ registry: REGISTRY.kinds }, { steps: desired.steps } as never).map((member) => {
      const module = REGISTRY.kinds.find((m) => m.definition.kind === member.kind) as KindModule;
      return { module, resource: module.schema.parse(member) };
    });
    return [self, ...members];
  }

  /**
   * The licence's word on it and on each of its members, in the same order as the operator's: the
   * feature, then the cap over the app's instances of the kind, in declaration order. The operator still
   * decides in the cluster, where older instances may exist.
   */
  private licenceProblems(): string[] {
    const app = appDeclarations(this, community);
    const entitlements = app.entitlements ?? community();
    const declared = app.byConstruct.get(this) ?? [];
    const problems: string[] = [];
    for (const [index, { module, resource }] of declared.entries()) {
      const refusal = licenceRefusal(
        module,
        resource,
        { licence: { entitlements, instances: app.instances.get(resource.kind) ?? [] } },
        app.caps.get(resource.kind),
      );
      if (!refusal) continue;
      const at = `${this.module.definition.kind} at ${this.node.path}`;
      problems.push(
        index === 0 ? `${at}: ${refusal.message}` : `${at}: its member would be refused: ${refusal.message}`,
      );
      if (index === 0) break;
    }
    return problems;
  }

  /**
   * Synth-time grant check: cdk8s cannot see the cluster, so the references into other namespaces must be
   * granted by the app's own grant constructs, by the same decision the operator makes.
   */
  private grantProblems(): string[] {
    const referrer = referrerOf(this.resource);
    const ungranted = ungrantedReferences(
      referrer,
      this.module.references(this.resource),
      appDeclarations(this, community).grants,
    );
    if (ungranted.length === 0) return [];
    const fields = ungranted.map((r) => `${r.field} (namespace ${r.namespace})`).join(" and ");
    const kind = this.module.definition.kind;
    const grant = REGISTRY.grants.kind;
    return [
      `${kind} at ${this.node.path}: ${fields} ${ungranted.length > 1 ? "point" : "points"} into another namespace, and no ${grant} of this app grants it: the operator would refuse it (${REFERENCE_NOT_PERMITTED}). Declare ${grantsToCreate(referrer, ungranted).join("; and ")}, with the ${grant} construct; or, when that grant already exists in the cluster, set grantedInCluster: true on this ${kind}`,
    ];
  }
}
