import * as pulumi from "@pulumi/pulumi";
import type { KindModule } from "../../lib/engine/kind-module.js";
import { runtimeProvider } from "./runtime-provider.js";

/** The one runtime every kind's dynamic resource runs (the kind is one of its inputs). */
const RUNTIME_URL = new URL("./runtime.js", import.meta.url).href;

/**
 * The dynamic resource of any registered kind: type token `navique:<Kind>` (as the first release named
 * them), the kind's outputs declared from its module, the secret ones made secrets in the state.
 */
export class KindResource extends pulumi.dynamic.Resource {
  constructor(module: KindModule, name: string, inputs: Record<string, unknown>, opts: pulumi.CustomResourceOptions) {
    const names = Object.entries(module.outputs.names);
    const outputs = Object.fromEntries(names.map(([output]) => [output, undefined]));
    const secrets = names.filter(([, o]) => o.secret).map(([output]) => output);
    super(
      runtimeProvider(RUNTIME_URL),
      name,
      { ...inputs, ...outputs },
      { ...opts, ...(secrets.length > 0 ? { additionalSecretOutputs: secrets } : {}) },
      "navique",
      module.definition.kind,
    );
  }

  /** One of the kind's outputs. */
  output<T>(name: string): pulumi.Output<T> {
    return (this as unknown as Record<string, pulumi.Output<T>>)[name] as pulumi.Output<T>;
  }
}
