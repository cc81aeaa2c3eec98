import { createServer, type Server } from "node:net";
import { parseBindAddress } from "../../providers/operator/bind-address.js";
import { serveEndpoints } from "../../providers/operator/endpoint-server.js";

const LOOPBACK_ANY_PORT = () => parseBindAddress("--health-probe-bind-address", "127.0.0.1:0", "the health probes");

describe("serveEndpoints", () => {
  // GIVEN a server with one endpoint on a free loopback port
  // THEN GET answers it, HEAD its status without a body, any other path 404 and any other method 405
  it("answers GET and HEAD of its paths, 404 and 405 otherwise", async () => {
    const address = LOOPBACK_ANY_PORT();
    if (!address) throw new Error("127.0.0.1:0 turns nothing off");
    const server = await serveEndpoints(address, {
      "/healthz": () => ({ status: 200, body: "ok" }),
      "/broken": () => {
        throw new Error("no answer");
      },
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const get = await fetch(`${server.url}/healthz`);
      expect([get.status, get.headers.get("content-type"), await get.text()]).toEqual([
        200,
        "text/plain; charset=utf-8",
        "ok",
      ]);
      const head = await fetch(`${server.url}/healthz`, { method: "HEAD" });
      expect([head.status, await head.text()]).toEqual([200, ""]);
      const missing = await fetch(`${server.url}/metrics?x=1`);
      expect([missing.status, await missing.text()]).toEqual([
        404,
        "no endpoint /metrics: this server answers /healthz, /broken",
      ]);
      const post = await fetch(`${server.url}/healthz`, { method: "POST" });
      expect([post.status, post.headers.get("allow"), await post.text()]).toEqual([
        405,
        "GET, HEAD",
        "POST /healthz: only GET and HEAD are answered",
      ]);
      const broken = await fetch(`${server.url}/broken`);
      expect([broken.status, await broken.text()]).toEqual([500, "/broken failed: no answer"]);
    } finally {
      await server.close();
    }
  });

  // GIVEN a port another process listens on
  // WHEN a server is asked to listen there
  // THEN it refuses in one line naming the flag, the value, the port and what to do
  it("refuses a port in use, naming the flag", async () => {
    const other: Server = createServer();
    const port = await new Promise<number>((resolve) =>
      other.listen(0, "127.0.0.1", () => resolve((other.address() as { port: number }).port)),
    );
    try {
      const address = parseBindAddress("--metrics-bind-address", `127.0.0.1:${port}`, "metrics");
      if (!address) throw new Error("a port turns nothing off");
      await expect(serveEndpoints(address, {})).rejects.toThrow(
        `--metrics-bind-address 127.0.0.1:${port}: port ${port} is already in use by another process; stop it, or choose another with --metrics-bind-address HOST:PORT, or 0 to turn metrics off`,
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
