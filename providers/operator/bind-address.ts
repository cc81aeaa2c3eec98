/**
 * Where the operator serves its metrics unless told otherwise (`--metrics-bind-address`), as
 * controller-runtime's operators do; the chart's `metrics` port.
 */
export const DEFAULT_METRICS_BIND_ADDRESS = ":8080";

/** Where the operator serves /healthz and /readyz unless told otherwise (`--health-probe-bind-address`); the chart's `health` port. */
export const DEFAULT_HEALTH_PROBE_BIND_ADDRESS = ":8081";

/** Where the operator serves the console unless told otherwise (`--console-bind-address`); the chart's `console` port. */
export const DEFAULT_CONSOLE_BIND_ADDRESS = ":8082";

/** Where `navique console` listens unless told otherwise (`--address`): this machine only. */
export const DEFAULT_LOCAL_CONSOLE_ADDRESS = "127.0.0.1:8082";

/** The value that turns a server off, as controller-runtime spells it for both flags. */
export const BIND_ADDRESS_OFF = "0";

/** An address a server listens on, from a flag such as `--metrics-bind-address`. */
export interface BindAddress {
  /** The flag it was given by, named in every error about it. */
  readonly flag: string;
  /** The value as given (`:8080`), named in every error about it. */
  readonly value: string;
  /** What the server serves (`metrics`), for the errors' "or 0 to turn … off". */
  readonly serves: string;
  /** The host or IP to listen on; undefined: every interface. */
  readonly host: string | undefined;
  /** The port; 0 asks the system for a free one. */
  readonly port: number;
}

/** `HOST:PORT`, `:PORT` or `[IPv6]:PORT`: Go's net.Listen spelling, which controller-runtime's flags take. */
const HOST_PORT = /^(?:\[(?<ipv6>[0-9A-Fa-f:.]+)\]|(?<host>[A-Za-z0-9.-]+))?:(?<port>[0-9]+)$/;

/**
 * Parses a bind-address flag: `HOST:PORT`, `:PORT` (every interface), `[IPv6]:PORT`, or `0` to turn the
 * server off (undefined). Anything else is refused naming the flag, the value and what to write instead.
 */
export function parseBindAddress(flag: string, value: string, serves: string): BindAddress | undefined {
  if (value === BIND_ADDRESS_OFF) return undefined;
  const match = HOST_PORT.exec(value);
  if (!match?.groups) {
    throw new Error(
      `${flag} ${value}: expected HOST:PORT or :PORT, e.g. :8080, or ${BIND_ADDRESS_OFF} to turn ${serves} off`,
    );
  }
  const port = Number(match.groups.port);
  if (port > 65_535) {
    throw new Error(
      `${flag} ${value}: the port must be 1 to 65535 (or 0 for any free one), e.g. :8080, or ${BIND_ADDRESS_OFF} to turn ${serves} off`,
    );
  }
  return { flag, value, serves, host: match.groups.ipv6 ?? match.groups.host, port };
}
