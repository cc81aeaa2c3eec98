import { parseAllDocuments } from "yaml";

/** The parts of a rendered Deployment the operator's install tests read. */
export interface RenderedDeployment {
  readonly kind: string;
  readonly spec: {
    readonly template: {
      readonly spec: {
        readonly containers: {
          readonly image?: string;
          readonly args?: string[];
          readonly resources?: unknown;
          readonly volumeMounts?: unknown[];
        }[];
        readonly volumes?: { readonly name: string }[];
      };
    };
  };
}

/** The Deployment among objects a chart or a construct rendered; throws when there is none. */
export function deploymentAmong(objects: readonly unknown[]): RenderedDeployment {
  const found = objects.find((o) => (o as { kind?: string } | null)?.kind === "Deployment");
  if (!found) throw new Error("no Deployment rendered");
  return found as RenderedDeployment;
}

/** The Deployment among rendered manifests (a multi-document YAML stream). */
export function deploymentIn(manifests: string): RenderedDeployment {
  return deploymentAmong(parseAllDocuments(manifests).map((d) => d.toJSON()));
}
