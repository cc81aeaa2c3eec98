import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { outputNames } from "../../lib/engine/outputs.js";
import { runtimeProvider } from "./runtime-provider.js";
import { tellPulumiTheUsersPosition } from "./source-position.js";

/**
 * The one runtime every kind's dynamic resource runs (the kind is one of its inputs), named as the
 * package exports it: the provider process resolves it from the program's directory (runtime-provider.ts).
 */
const RUNTIME = "@navique/ai-core/pulumi/runtime";

/**
 * One provider for every dynamic resource of a program: the SDK serializes a provider object once and
 * reuses the text for every resource given the same object (a serialization walks the closure through
 * the inspector and parses its source: ~25 ms of CPU in the program's process each time). The text, so
 * the state, is the same.
 */
const PROVIDER = runtimeProvider(RUNTIME);

/**
 * The dynamic resource of any registered kind: type token `navique:<Kind>` (as the first release named
 * them), the kind's outputs declared from its module, the secret ones made secrets in the state.
 */
export class KindResource extends pulumi.dynamic.Resource {
  constructor(module: KindModule, name: string, inputs: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    const outputs = Object.fromEntries(outputNames(module.outputs).map(({ name }) => [name, undefined]));
    // The kubeconfig's content is among the outputs too (a deletion reads the cluster from them).
    const secrets = [...module.outputs.secrets, "kubeconfig"];
    const restore = tellPulumiTheUsersPosition();
    try {
      super(
        PROVIDER,
        name,
        { ...inputs, ...outputs },
        { ...opts, additionalSecretOutputs: secrets },
        "navique",
        module.definition.kind,
      );
    } finally {
      restore();
    }
  }

  /** One of the kind's outputs. */
  output<T>(name: string): pulumi.Output<T> {
    return (this as unknown as Record<string, pulumi.Output<T>>)[name] as pulumi.Output<T>;
  }
}
