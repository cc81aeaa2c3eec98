import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The apiserver as one process sees it, through a TCP relay that the test can take down: while down, every
 * connection is closed and every new one refused, as from an apiserver that stopped; up again, it relays
 * to the real apiserver on the same port as before. Only the process given `kubeconfig` is cut off — the
 * other suites sharing the plane are not. TLS passes through untouched (the relay listens on 127.0.0.1,
 * a name the apiserver's certificate holds).
 */
export interface ApiOutage {
  /** A copy of the plane's kubeconfig whose server is the relay. */
  readonly kubeconfig: string;
  /** Closes every relayed connection and refuses new ones. */
  down(): Promise<void>;
  /** Relays again, on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function apiOutageRelay(planeKubeconfig: string): Promise<ApiOutage> {
  const text = await readFile(planeKubeconfig, "utf8");
  const server = /"?server"?:\s*"?(https:\/\/127\.0\.0\.1:(\d+))"?/.exec(text);
  if (!server?.[1] || !server[2]) throw new Error(`${planeKubeconfig}: no https://127.0.0.1:PORT server to relay to`);
  const target = Number(server[2]);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  let relay: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const listening = createServer((client) => {
        const upstream = connect(target, "127.0.0.1");
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on("error", end);
        upstream.on("error", end);
      });
      listening.once("error", reject);
      listening.listen(port, "127.0.0.1", () => {
        relay = listening;
        const address = listening.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  const port = await listen(0);
  const dir = await mkdtemp(join(tmpdir(), "navique-outage-"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(kubeconfig, text.replace(server[1], `https://127.0.0.1:${port}`));
  const down = async () => {
    const closing = relay;
    relay = undefined;
    const closed = closing ? new Promise<void>((resolve) => closing.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    kubeconfig,
    down,
    up: async () => {
      if (!relay) await listen(port);
    },
    close: async () => {
      await down();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
