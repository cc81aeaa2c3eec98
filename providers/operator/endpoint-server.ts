import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BIND_ADDRESS_OFF, type BindAddress } from "./bind-address.js";

/** What an endpoint answers. */
export interface EndpointResponse {
  readonly status: number;
  readonly body: string;
  /** @default "text/plain; charset=utf-8" */
  readonly contentType?: string;
}

/** One path's answer to GET (and HEAD), made at each request. */
export type Endpoint = () => EndpointResponse | Promise<EndpointResponse>;

/** A server listening; `close` stops it and ends its connections. */
export interface EndpointServer {
  /** Where it listens, as `http://HOST:PORT` with the port bound (`:0` binds a free one). */
  readonly url: string;
  close(): Promise<void>;
}

const TEXT = "text/plain; charset=utf-8";

/** Why a listen failed, in words that say what to do; the flag and its value come first. */
function listenFailure(address: BindAddress, error: NodeJS.ErrnoException): Error {
  const { flag, value, serves, port } = address;
  const where = `${flag} ${value}`;
  const instead = `choose another with ${flag} HOST:PORT, or ${BIND_ADDRESS_OFF} to turn ${serves} off`;
  switch (error.code) {
    case "EADDRINUSE":
      return new Error(`${where}: port ${port} is already in use by another process; stop it, or ${instead}`);
    case "EACCES":
      return new Error(`${where}: not permitted to listen on port ${port} (below 1024 needs privileges); ${instead}`);
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new Error(`${where}: ${address.host} is not an address of this machine; ${instead}`);
    default:
      return new Error(`${where}: cannot listen (${error.code ?? error.message}); ${instead}`);
  }
}

/** `http://HOST:PORT` of a bound server, an IPv6 host in brackets. */
function urlOf(bound: AddressInfo): string {
  const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  return `http://${host}:${bound.port}`;
}

/**
 * Serves `endpoints` over plain HTTP on `address`: GET and HEAD of each path, 404 for any other path, 405
 * for any other method; an endpoint that throws answers 500 with its message. Resolves once listening;
 * rejects with one line naming the flag when it cannot (the port in use, not permitted, not an address of
 * this machine), so that the process fails its start rather than running without its probes.
 */
export async function serveEndpoints(
  address: BindAddress,
  endpoints: Readonly<Record<string, Endpoint>>,
): Promise<EndpointServer> {
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? "/", "http://endpoint").pathname;
    const endpoint = endpoints[path];
    let reply: EndpointResponse;
    if (!endpoint) {
      reply = { status: 404, body: `no endpoint ${path}: this server answers ${Object.keys(endpoints).join(", ")}` };
    } else if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("Allow", "GET, HEAD");
      reply = { status: 405, body: `${request.method} ${path}: only GET and HEAD are answered` };
    } else {
      reply = await Promise.resolve()
        .then(endpoint)
        .catch((error: unknown) => ({
          status: 500,
          body: `${path} failed: ${error instanceof Error ? error.message : String(error)}`,
        }));
    }
    response.writeHead(reply.status, { "Content-Type": reply.contentType ?? TEXT });
    response.end(request.method === "HEAD" ? undefined : reply.body);
  };
  return listenOn(
    createServer((request, response) => void answer(request, response)),
    address,
  );
}

/**
 * Starts `server` listening on `address`: resolves once it listens, with its URL and how to close it;
 * rejects with one line naming the flag when it cannot (the port in use, not permitted, not an address of
 * this machine).
 */
export async function listenOn(server: Server, address: BindAddress): Promise<EndpointServer> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenFailure(address, error)));
    server.listen({ port: address.port, ...(address.host ? { host: address.host } : {}) }, () => resolve());
  });
  return {
    url: urlOf(server.address() as AddressInfo),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's or a browser's kept-alive connection would hold the close until it times out.
        server.closeAllConnections();
      }),
  };
}
