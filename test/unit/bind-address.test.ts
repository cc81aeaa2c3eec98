import { parseHealthProbeBindAddress, parseMetricsBindAddress } from "../../lib/cli/operator-command.js";
import { parseBindAddress } from "../../providers/operator/bind-address.js";

describe("--metrics-bind-address and --health-probe-bind-address", () => {
  it("default to :8080 and :8081 on every interface, as controller-runtime's operators", () => {
    expect(parseMetricsBindAddress(undefined)).toEqual({
      flag: "--metrics-bind-address",
      value: ":8080",
      serves: "metrics",
      host: undefined,
      port: 8080,
    });
    expect(parseHealthProbeBindAddress(undefined)).toEqual({
      flag: "--health-probe-bind-address",
      value: ":8081",
      serves: "the health probes",
      host: undefined,
      port: 8081,
    });
  });

  it("turn their server off with 0", () => {
    expect(parseMetricsBindAddress("0")).toBeUndefined();
    expect(parseHealthProbeBindAddress("0")).toBeUndefined();
  });

  it("take HOST:PORT, :PORT and [IPv6]:PORT; port 0 asks for a free one", () => {
    const parse = (value: string) => {
      const address = parseBindAddress("--metrics-bind-address", value, "metrics");
      return address && { host: address.host, port: address.port };
    };
    expect(parse("127.0.0.1:9090")).toEqual({ host: "127.0.0.1", port: 9090 });
    expect(parse("localhost:9090")).toEqual({ host: "localhost", port: 9090 });
    expect(parse("[::1]:9090")).toEqual({ host: "::1", port: 9090 });
    expect(parse(":0")).toEqual({ host: undefined, port: 0 });
  });

  it("refuse anything else, naming the flag, the value and what to write", () => {
    expect(() => parseMetricsBindAddress("abc")).toThrow(
      "--metrics-bind-address abc: expected HOST:PORT or :PORT, e.g. :8080, or 0 to turn metrics off",
    );
    expect(() => parseMetricsBindAddress("8080")).toThrow(
      "--metrics-bind-address 8080: expected HOST:PORT or :PORT, e.g. :8080, or 0 to turn metrics off",
    );
    expect(() => parseHealthProbeBindAddress("::1:8081")).toThrow(
      "--health-probe-bind-address ::1:8081: expected HOST:PORT or :PORT, e.g. :8080, or 0 to turn the health probes off",
    );
    expect(() => parseHealthProbeBindAddress(":65536")).toThrow(
      "--health-probe-bind-address :65536: the port must be 1 to 65535 (or 0 for any free one), e.g. :8080, or 0 to turn the health probes off",
    );
  });
});
