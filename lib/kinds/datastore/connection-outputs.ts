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
