import { pathToFileURL } from "node:url";

/**
 * What ties a recorded Pulumi state to the machine and the run that made it. A state kept as a fixture
 * holds placeholders instead (test/fixtures/pulumi/legacy-state/README.md), put back for the machine
 * that imports it.
 */
export interface StateValues {
  /** The clone whose providers/pulumi the serialized providers import by `file://` URL. */
  readonly repoRoot: string;
  readonly kubeconfig: string;
  readonly helm: string;
  /** The namespace of every recorded resource. */
  readonly namespace: string;
}

/**
 * Each placeholder and the value it stands for. The whole paths come before the repository root, which
 * they might contain, and the root's URL before its path, which the URL contains.
 */
function substitutions(values: StateValues): readonly (readonly [placeholder: string, value: string])[] {
  return [
    ["{{KUBECONFIG}}", values.kubeconfig],
    ["{{HELM}}", values.helm],
    ["{{REPO_ROOT_URL}}", pathToFileURL(values.repoRoot).href],
    ["{{REPO_ROOT}}", values.repoRoot],
    ["{{NAMESPACE}}", values.namespace],
  ];
}

/** Every string in `value` (keys left alone) mapped through `replace`. */
function mapStrings(value: unknown, replace: (text: string) => string): unknown {
  if (typeof value === "string") return replace(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, replace));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, replace)]));
  }
  return value;
}

/**
 * A state exported on this machine (`pulumi stack export`) with each value of `values` replaced by its
 * placeholder. Text inside strings is replaced where it stands, so a serialized provider keeps every
 * other character it was written with. Fails when the values could not be put back exactly: a namespace
 * that also occurs in a path, or a state that already holds placeholder text.
 */
export function withPlaceholders(state: unknown, values: StateValues): unknown {
  const paths = [values.repoRoot, values.kubeconfig, values.helm];
  if (paths.some((path) => path.includes(values.namespace))) {
    throw new Error(`namespace ${values.namespace} occurs in a path of the state: record it in another namespace`);
  }
  let recorded = state;
  for (const [placeholder, value] of substitutions(values)) {
    recorded = mapStrings(recorded, (text) => text.replaceAll(value, placeholder));
  }
  if (JSON.stringify(withValues(recorded, values)) !== JSON.stringify(state)) {
    throw new Error("the state does not round-trip through its placeholders: record it with other values");
  }
  return recorded;
}

/** A recorded state with its placeholders replaced by this machine's values, ready for `pulumi stack import`. */
export function withValues(recorded: unknown, values: StateValues): unknown {
  let state = recorded;
  for (const [placeholder, value] of substitutions(values)) {
    state = mapStrings(state, (text) => text.replaceAll(placeholder, value));
  }
  return state;
}

/** One resource of an exported state (`deployment.resources[]`), as far as the tests read it. */
export interface StateResource {
  readonly urn: string;
  readonly type: string;
  readonly id?: string;
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
  readonly additionalSecretOutputs?: readonly string[];
}

/** The resources of an exported state. */
export function stateResources(state: unknown): readonly StateResource[] {
  return (state as { deployment?: { resources?: StateResource[] } }).deployment?.resources ?? [];
}

/** The key under which a Node.js dynamic resource keeps its serialized provider (@pulumi/pulumi's providerKey). */
export const SERIALIZED_PROVIDER_KEY = "__provider";

/** The resources of a state that a Node.js dynamic provider manages: those recording their serialized provider. */
export function dynamicResources(state: unknown): readonly StateResource[] {
  return stateResources(state).filter((resource) => typeof resource.inputs?.[SERIALIZED_PROVIDER_KEY] === "string");
}
