import { type Chart, Testing } from "cdk8s";
import { stringify } from "yaml";
import * as constructs from "../../constructs/kinds.js";
import { ReferenceGrant as ReferenceGrantConstruct } from "../../constructs/reference-grant.js";
import { API_GROUP_VERSION } from "../../lib/api/group.js";
import { judgeFile } from "../../lib/engine/plan-inputs.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import * as components from "../../providers/pulumi/kinds.js";
import { synthProblems } from "./synth-problems.js";

/** The namespace every refusal below is judged in. */
const NAMESPACE = "apps";

type ConstructClass = new (
  scope: Chart,
  id: string,
  props: { namespace: string; spec: unknown; grantedInCluster: boolean },
) => unknown;
type ComponentClass = new (name: string, args: { namespace: string; spec: unknown }) => unknown;

/**
 * What cdk8s synth says of a spec of `kind`, written in its construct: the lines of the refusal (every
 * problem, `[path] Kind field: …`). A ReferenceGrant is its own construct; every other kind's is generated.
 */
export function constructRefusal(kind: string, spec: unknown): string[] {
  const chart = Testing.chart();
  if (kind === REGISTRY.grants.kind)
    new ReferenceGrantConstruct(chart, "judged", { namespace: "data", spec: spec as never });
  else {
    const Construct = (constructs as unknown as Record<string, ConstructClass>)[kind];
    if (!Construct) throw new Error(`no construct for kind ${kind}`);
    new Construct(chart, "judged", { namespace: NAMESPACE, spec, grantedInCluster: true });
  }
  return synthProblems(chart);
}

/**
 * What the Pulumi component of `kind` says of a spec given as plain values: the message of the
 * ResourceError it throws (`Kind judged is invalid:` and one line per field). Pulumi's mocks must be set
 * (`pulumi.runtime.setMocks`) by the test file.
 */
export function componentRefusal(kind: string, spec: unknown): string {
  const Component = (components as unknown as Record<string, ComponentClass>)[kind];
  if (!Component) throw new Error(`no Pulumi component for kind ${kind}`);
  try {
    new Component("judged", { namespace: NAMESPACE, spec });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`the ${kind} component accepted the spec`);
}

/** What `navique plan` says of a document of `kind` with this spec (and name): its problems, each a text. */
export function planRefusal(kind: string, spec: unknown, name = "judged"): readonly string[] {
  const cluster = kind === REGISTRY.singleton.definition.kind;
  const document = {
    apiVersion: API_GROUP_VERSION,
    kind,
    metadata: { name, ...(cluster ? {} : { namespace: kind === REGISTRY.grants.kind ? "data" : NAMESPACE }) },
    spec,
  };
  return judgeFile("platform.yaml", new TextEncoder().encode(stringify(document)), REGISTRY).problems;
}
