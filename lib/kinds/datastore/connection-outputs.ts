import * as z from "zod";
import type { Connection } from "../../api/resource-status.js";

/**
 * What every kind publishing `status.connection` exposes of it as outputs (Pulumi, `navique plan`): the
 * Secret its secret outputs are read from, and host, port and that Secret's reference — the same shape
 * for every kind, so that a consumer reads any (docs/adr/0030-one-connection-shape.md).
 */

/** The Secret holding the connection's credentials, if the connection names one. */
export function connectionCredentialsSecret(
  connection: Connection | undefined,
): { readonly name: string; readonly namespace: string } | undefined {
  const secret = connection?.credentialsSecret;
  return secret ? { name: secret.name, namespace: secret.namespace ?? "" } : undefined;
}

/** Host, port (`defaultPort` until one is published) and the credentials Secret, in `namespace` by default. */
export function connectionOutputs(connection: Connection | undefined, namespace: string, defaultPort: number) {
  return {
    host: connection?.host ?? "",
    port: connection?.port ?? defaultPort,
    credentialsSecret: {
      name: connection?.credentialsSecret?.name ?? "",
      namespace: connection?.credentialsSecret?.namespace ?? namespace,
    },
  };
}

/** A Secret's name and namespace, as an output. */
export const SecretOutput = z.object({
  name: z.string().describe("Name of the Secret."),
  namespace: z.string().describe("Namespace of the Secret."),
});

/**
 * The schema of those outputs: `holds` says what the credentials Secret holds (its keys), `host` where the
 * host comes from in each mode.
 */
export function connectionOutputsShape(kind: string, description: { readonly holds: string; readonly host: string }) {
  return {
    host: z.string().describe(`Host consumers connect to: ${description.host}.`),
    port: z.number().int().describe("Port consumers connect to."),
    credentialsSecret: SecretOutput.describe(
      `The Secret, in the ${kind}'s namespace, that holds ${description.holds}.`,
    ),
  };
}
