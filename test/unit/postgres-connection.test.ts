import { connectionUrl } from "../../lib/kinds/datastore/connection-url.js";
import { postgresConnection } from "../../lib/kinds/postgres-cluster/status-connection.js";

describe("where a PostgresCluster says consumers connect", () => {
  const secret = { name: "main-credentials", namespace: "apps" };

  it("reads status.connection first", () => {
    const connection = { host: "main-rw.apps.svc", port: 5432, credentialsSecret: secret, url: "postgresql://x:5432" };
    expect(postgresConnection({ connection, host: "stale", port: 1, credentialsSecret: secret })).toEqual(connection);
  });

  it("reads the deprecated fields of a status an earlier release wrote, until it is reconciled again", () => {
    expect(postgresConnection({ host: "main-rw.apps.svc", port: 5432, credentialsSecret: secret })).toEqual({
      host: "main-rw.apps.svc",
      port: 5432,
      credentialsSecret: secret,
    });
  });

  it("says nothing while the status says nothing", () => {
    expect(postgresConnection(undefined)).toBeUndefined();
    expect(postgresConnection({ host: "h" })).toBeUndefined();
  });

  it("writes a URL without credentials, an IPv6 address in brackets", () => {
    expect(connectionUrl("postgresql", "db.internal", 6432)).toBe("postgresql://db.internal:6432");
    expect(connectionUrl("redis", "fd00::5", 6379)).toBe("redis://[fd00::5]:6379");
  });
});
